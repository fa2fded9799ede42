import AsyncBridge
import AsyncBridgeTesting
import Dispatch
import Foundation
import Observation
import Testing

/// A main-actor model as an app writes it: the macro, nothing else.
@MainActor @Observable
final class SearchForm {
    var query = ""
    var scope = "all"
    var useScope = false
    var count = 0
    var doubled: Int { count * 2 }
}

/// A model changed from any thread: every access and every whole mutation (`willSet`, the
/// write, `didSet`) under one lock, as `withMutation(keyPath:)` inside the lock.
final class SharedCounter: Observable, @unchecked Sendable {
    // Unchecked: `stored` is only read and written under `lock`.
    private let registrar = ObservationRegistrar()
    private let lock = NSLock()
    private var stored = 0
    private var storedLabel = ""

    var value: Int {
        lock.withLock {
            registrar.access(self, keyPath: \.value)
            return stored
        }
    }

    var label: String {
        lock.withLock {
            registrar.access(self, keyPath: \.label)
            return storedLabel
        }
    }

    func increment() {
        lock.withLock { registrar.withMutation(of: self, keyPath: \.value) { stored += 1 } }
    }

    func setLabel(_ label: String) {
        lock.withLock { registrar.withMutation(of: self, keyPath: \.label) { storedLabel = label } }
    }
}

@Suite("Flow.observing: @Observable models changed from any thread", .timeLimit(.minutes(1)))
struct ObservationFlowTests {
    @Test func theCurrentValueFirstThenTheValueAfterEachChange() async {
        let counter = SharedCounter()
        let recorder = FlowRecorder(Flow.observing { counter.value })
        #expect(recorder.values == [0], "the current value comes inside subscribe")
        counter.increment()
        await recorder.waitForValues(2)
        #expect(recorder.values == [0, 1], "read before the change was applied")
        counter.increment()
        await recorder.waitForValues(3)
        #expect(recorder.values == [0, 1, 2])
        recorder.cancel()
    }

    @Test func everythingTheClosureReadsIsTrackedTogether() async {
        let counter = SharedCounter()
        let recorder = FlowRecorder(Flow.observing { "\(counter.label):\(counter.value)" })
        counter.setLabel("a")
        await recorder.waitForValues(2)
        counter.increment()
        await recorder.waitForValues(3)
        #expect(recorder.values == [":0", "a:0", "a:1"])
        recorder.cancel()
    }

    /// The window between reading a model and the registration taking effect: a change that
    /// lands there (here, made by the read itself, from another thread) is in the value sent,
    /// though no registration was in place to report it.
    @Test func aChangeBetweenTheReadAndItsRegistrationIsNotLost() {
        let counter = SharedCounter()
        let changesOnce = Box(true)
        let recorder = FlowRecorder(Flow.observing {
            let value = counter.value
            if changesOnce.value {
                changesOnce.value = false
                DispatchQueue.global().sync { counter.increment() }
            }
            return value
        })
        #expect(recorder.values.last == 1, "the change made while registering was lost: \(recorder.values)")
        recorder.cancel()
    }

    /// Threads changing the model at once: each value is one read after a change (never an
    /// older one after a newer), and the last change is always seen.
    @Test func changesFromSeveralThreadsAreAllSeenInTheEnd() async {
        let counter = SharedCounter()
        let threads = 4, perThread = 500
        let observed = Flow.observing { counter.value }
        let recorder = FlowRecorder(observed)
        let last = FlowRecorder(observed.first { $0 == threads * perThread })
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                DispatchQueue.concurrentPerform(iterations: threads) { _ in
                    for _ in 0..<perThread { counter.increment() }
                }
                done.resume()
            }
        }
        await last.waitForCompletion()
        #expect(last.values == [threads * perThread])
        let values = recorder.values
        #expect(values == values.sorted(), "an older value came after a newer one")
        recorder.cancel()
    }

    @Test func cancellingStopsTrackingAndLetsGoOfTheModel() {
        let reads = AtomicCounter()
        weak var weakCounter: SharedCounter?
        let recorder: FlowRecorder<Int, Never>
        do {
            let counter = SharedCounter()
            weakCounter = counter
            recorder = FlowRecorder(Flow.observing {
                reads.increment()
                return counter.value
            })
            recorder.cancel()
            counter.increment()
            counter.increment()
        }
        #expect(reads.value == 2, "read again after cancel (each read is registered twice)")
        #expect(recorder.values == [0])
        #expect(weakCounter == nil, "the ended subscription kept the model")
    }

    @Test func asAnAsyncSequence() async {
        let counter = SharedCounter()
        var seen: [Int] = []
        for await value in Flow.observing({ counter.value }).values {
            seen.append(value)
            if value == 2 { break }
            counter.increment()
        }
        #expect(seen == [0, 1, 2])
    }
}

@Suite("MainActorFlow.observing: main-actor @Observable models", .timeLimit(.minutes(1)))
@MainActor
struct MainActorObservationFlowTests {
    @Test func theCurrentValueInsideSubscribeThenOneValuePerStretchOfChanges() async {
        let form = SearchForm()
        let received = Box<[String]>([])
        let token = MainActorFlow.observing { form.query }
            .subscribe(onValue: { query in received.mutate { $0.append(query) } }, onCompletion: { _ in })
        #expect(received.value == [""])
        form.query = "s"
        form.query = "sw"
        form.query = "swift"
        #expect(received.value == [""], "a value came before the code changing the model returned")
        await waitForMainQueue()
        #expect(received.value == ["", "swift"], "changes made together come as one value, the last")
        form.query = "swifty"
        await waitForMainQueue()
        #expect(received.value == ["", "swift", "swifty"])
        token.cancel()
    }

    @Test func severalPropertiesAndComputedOnesAreTrackedTogetherAndAnewAtEachRead() async {
        let form = SearchForm()
        let received = Box<[String]>([])
        let token = MainActorFlow.observing { form.useScope ? "\(form.scope)/\(form.doubled)" : form.query }
            .subscribe(onValue: { value in received.mutate { $0.append(value) } }, onCompletion: { _ in })
        form.scope = "repos"   // not read yet: no value
        await waitForMainQueue()
        form.useScope = true
        await waitForMainQueue()
        form.count = 2         // read through a computed property
        await waitForMainQueue()
        form.query = "ignored" // no longer read
        await waitForMainQueue()
        #expect(received.value == ["", "repos/0", "repos/4"])
        token.cancel()
    }

    @Test func valuesArriveOnTheMainActorWhereverTheSubscriptionWasMade() async {
        let form = SearchForm()
        let onMain = Box<[Bool]>([])
        let subscribed = CompletionSpy<CancellationToken>()
        let flow = MainActorFlow.observing { form.count }.flow
        DispatchQueue.global().async {
            subscribed.record(flow.subscribe { _ in onMain.mutate { $0.append(isOnMainQueue()) } })
        }
        let token = await subscribed.firstCall()
        await waitForMainQueue()
        form.count = 1
        await waitForMainQueue()
        #expect(onMain.value == [true, true])
        token.cancel()
    }

    @Test func cancellingStopsTrackingAndLetsGoOfTheModel() async {
        let reads = AtomicCounter()
        weak var weakForm: SearchForm?
        do {
            let form = SearchForm()
            weakForm = form
            let token = MainActorFlow.observing {
                reads.increment()
                return form.query
            }.subscribe(onValue: { _ in }, onCompletion: { _ in })
            form.query = "a"   // a read is now scheduled
            token.cancel()
            await waitForMainQueue()
            #expect(reads.value == 1, "read again after cancel")
            form.query = "b"
            await waitForMainQueue()
        }
        #expect(reads.value == 1)
        #expect(weakForm == nil, "the ended subscription kept the model")
    }

    @Test func asAnAsyncSequenceOnTheMainActor() async {
        let form = SearchForm()
        var seen: [String] = []
        for await query in MainActorFlow.observing({ form.query }).flow.values {
            seen.append(query)
            if query == "ab" { break }
            form.query += query.isEmpty ? "a" : "b"
        }
        #expect(seen == ["", "a", "ab"])
    }
}
