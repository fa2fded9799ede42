import AsyncBridge
import AsyncBridgeFoundation
import Foundation
import Observation

/// `@Observable` models and notifications as flows.
enum ObservingScenarios {
    static func run() async {
        await mainActorModel()
        await modelChangedFromThreads()
        await notifications()
    }

    @MainActor @Observable
    final class SearchForm {
        var query = ""
        var scope = "all"
    }

    /// What the screen shows: updated from the form's flow, on the main actor.
    @MainActor
    final class SearchScreen {
        var shown: [String] = []
    }

    @MainActor
    static func mainActorModel() async {
        section("An @Observable model on the main actor: MainActorFlow.observing")
        let form = SearchForm()
        let screen = SearchScreen()
        let token = MainActorFlow.observing { "\(form.scope): \(form.query)" }
            .subscribe(onValue: { line in screen.shown.append(line) }, onCompletion: { _ in })
        print("subscribed: the current value came inside subscribe: \(list(screen.shown))")
        form.query = "s"
        form.query = "sw"
        form.scope = "repos"
        form.query = "swift"
        await nextMainQueueTurn()
        print("four changes in one stretch of main-actor code (two properties): one value, read after them: \(list(screen.shown))")
        form.query = "swiftui"
        await nextMainQueueTurn()
        token.cancel()
        form.query = "after cancel"
        await nextMainQueueTurn()
        print("one more change, then cancel and a change nobody sees: \(list(screen.shown))")
    }

    /// A model changed from any thread: one lock around every read and every whole mutation.
    final class DownloadProgress: Observable, @unchecked Sendable {
        // Unchecked: `stored` is only read and written under `lock`.
        private let registrar = ObservationRegistrar()
        private let lock = NSLock()
        private var stored = 0

        var completed: Int {
            lock.withLock {
                registrar.access(self, keyPath: \.completed)
                return stored
            }
        }

        func complete() {
            lock.withLock { registrar.withMutation(of: self, keyPath: \.completed) { stored += 1 } }
        }
    }

    static func modelChangedFromThreads() async {
        section("A model changed from several threads: Flow.observing, as a for await loop")
        let progress = DownloadProgress()
        let workers = 4, filesEach = 250
        var seen = 0
        for await completed in Flow.observing({ progress.completed }).values {
            seen += 1
            if completed == workers * filesEach { break }
            guard seen == 1 else { continue }
            DispatchQueue.global().async {   // the workers start once the loop has its first value
                DispatchQueue.concurrentPerform(iterations: workers) { _ in
                    for _ in 0..<filesEach { progress.complete() }
                }
            }
        }
        print("\(workers) threads completed \(workers * filesEach) files; the loop saw \(seen) values, the last \(workers * filesEach) (changes made before a read come as one value): none lost")
    }

    static func notifications() async {
        section("NotificationCenter as a flow: a Sendable value taken on the posting thread")
        let center = NotificationCenter()
        let didLogIn = Notification.Name("didLogIn")
        let extractedOnPoster = DispatchSpecificKey<Bool>()
        let auth = DispatchQueue(label: "auth")
        auth.setSpecific(key: extractedOnPoster, value: true)
        let logins = center.flow(for: didLogIn) { notification in
            let name = notification.userInfo?["name"] as? String ?? "?"
            return "\(name) (taken on the posting queue: \(DispatchQueue.getSpecific(key: extractedOnPoster) == true))"
        }
        var iterator = logins.values.makeAsyncIterator()   // observing from here on
        auth.async {
            center.post(name: didLogIn, object: nil, userInfo: ["name": "Ada"])
            center.post(name: didLogIn, object: nil, userInfo: ["name": "Grace"])
        }
        var names: [String] = []
        while names.count < 2, let name = await iterator.next() { names.append(name) }
        print("posted on the auth queue, read by for await: \(list(names))")
    }

    /// Returns after the main queue has run what was enqueued before (the observing flow's
    /// next read).
    @MainActor
    static func nextMainQueueTurn() async {
        await withCheckedContinuation { done in DispatchQueue.main.async { done.resume() } }
    }
}
