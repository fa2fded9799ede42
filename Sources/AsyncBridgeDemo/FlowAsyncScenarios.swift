import AsyncBridge
import Dispatch

/// Flow ⇄ async/await: `values` and `firstValue`, `Flow(asyncSequence)` and `Flow { async }`,
/// `BroadcastChannel` for callbacks with many `for await` consumers, a flow's values on the
/// main actor, and cancellation of a flow's subscription and of a `values` loop.
enum FlowAsyncScenarios {
    static func run() async throws {
        try await flowToAsync()
        try await asyncToFlow()
        await broadcastChannel()
        await mainActorDelivery()
        await cancellation()
    }

    // MARK: Flow → async/await

    static func flowToAsync() async throws {
        section("Flow → async/await: for await over flow.values, try await flow.firstValue")
        var read: [Int] = []
        for await number in Flow<Int, Never>.sequence([1, 2, 3]).values {   // no try: the flow cannot fail
            read.append(number)
        }
        print("values: for await read \(list(read)) from a Flow, then the loop ended because the flow finished")

        let manager = UserManager.shared
        let missing = Flow { manager.getUser(withUserID: "nobody", completion: $0) }   // Flow<User, APIError>
        do throws(APIError) {
            for try await user in missing.values { print("unexpected \(user)") }
        } catch {
            print("values: for try await over a request flow that failed threw its typed APIError: \(error)")
        }

        let ada = try await Flow { manager.getUser(withUserID: "u1", completion: $0) }.firstValue
        print("firstValue: awaited the first value of a request flow: \(ada)")
        let sent = RequestLog()
        let first = try await Flow<String, Never>.sequence(["Ada", "Grace", "Linus"])
            .handleEvents(onValue: { _ in sent.increment() })
            .firstValue
        print("firstValue: took \(first) from a flow of three names and cancelled it: the flow sent \(sent.count) of them")
    }

    // MARK: async/await → Flow

    static func asyncToFlow() async throws {
        section("async/await → Flow: Flow(asyncSequence), Flow { try await … }")
        let ticks = AsyncStream<Int> { continuation in
            for tick in 1...3 { continuation.yield(tick) }
            continuation.finish()
        }
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *) {
            print("Flow(AsyncStream) is a Flow<Int, Never>: the stream's failure type is kept")
            try await FlowScenarios.drain(Flow(ticks), as: "tick") { "\($0)" }
        } else {
            print("Flow(erasing: AsyncStream) is a Flow<Int, any Error> (typed before macOS 15 / iOS 18)")
            try await FlowScenarios.drain(Flow(erasing: ticks), as: "tick") { "\($0)" }
        }

        let manager = UserManager.shared
        let user = Flow { () async throws -> User in
            try await withCompletion { manager.getUser(withUserID: "u3", completion: $0) }
        }
        print("Flow { try await … }: one async call as a flow of one value")
        try await FlowScenarios.drain(user, as: "user") { $0.name }
    }

    // MARK: Callbacks → many for-await loops

    static func broadcastChannel() async {
        section("Callbacks → for await: BroadcastChannel, one download delegate, two screens")
        let progress = BroadcastChannel<Int, Never>()
        let listening = (Signal(), Signal())
        // Each screen's loop: `makeAsyncIterator()` is what `for await` calls as it starts; it is
        // called here first so that the demo knows both screens listen before the delegate sends.
        async let listScreen = readAll(progress, listening: listening.0)
        async let detailScreen = readAll(progress, listening: listening.1)
        await listening.0.wait()
        await listening.1.wait()
        // The delegate's callbacks come on a thread of its own; `send` never waits for a loop.
        DispatchQueue(label: "DownloadDelegate").async {
            for percent in [25, 50, 100] { progress.send(percent) }
            progress.finish()
        }
        print("the delegate sends 25, 50, 100 from its own DispatchQueue, then finishes the channel")
        print("list screen: for await read \(list((await listScreen).map { "\($0)%" })), then its loop ended: the channel finished")
        print("detail screen: for await read \(list((await detailScreen).map { "\($0)%" })) too: every loop gets every value")
    }

    static func readAll(_ channel: BroadcastChannel<Int, Never>, listening: Signal) async -> [Int] {
        var iterator = channel.makeAsyncIterator()
        listening.fire()
        var read: [Int] = []
        while let value = await iterator.next() { read.append(value) }
        return read
    }

    // MARK: Flow → the main actor

    /// A screen's state, which only the main actor touches.
    @MainActor
    final class ProfileScreen {
        var shown: [String] = []
    }

    @MainActor
    static func mainActorDelivery() async {
        section("Flow → the main actor: receive(on: MainActor.shared)")
        let names = LiveSubject<String, Never>()
        let screen = ProfileScreen()
        let finished = Signal()
        let token = names.flow.receive(on: MainActor.shared).subscribe(onValue: { name in
            screen.shown.append(name)   // a @MainActor handler: no DispatchQueue.main.async
        }, onCompletion: { _ in finished.fire() })
        DispatchQueue(label: "network").async {
            names.send("Ada")
            names.send("Grace")
            names.finish()
        }
        await finished.wait()
        token.cancel()
        print("a network queue sent Ada, Grace; the screen's @MainActor handler showed \(list(screen.shown)), in order, on the main actor")
    }

    // MARK: Cancellation

    static func cancellation() async {
        section("Cancellation: of a Flow subscription, and of a for await loop over flow.values")
        let manager = UserManager.shared
        let cancelled = RequestLog()
        let slowUser = Flow<User, APIError> { completion, onCancel in
            let request = manager.getUser(withUserID: "u1", latencyMilliseconds: 10_000, completion: completion)
            onCancel {
                cancelled.increment()
                request.cancel()
            }
        }
        let events = RequestLog()
        let token = slowUser.map(\.name).subscribe(onValue: { _ in events.increment() }, onCompletion: { _ in events.increment() })
        token.cancel()
        print("Flow: token.cancel() reached the 10 s request through map: its cancel action ran \(times(cancelled.count)); the subscriber received \(events.count) events")

        let subscriptionCancelled = RequestLog()
        let readTwo = Signal()
        let numbers = Flow<Int, Never>.never.prepend(1, 2)   // 1, 2, then nothing, never finishing
            .handleEvents(onCancel: { subscriptionCancelled.increment() })
        let loop = Task {
            var read: [Int] = []
            for await number in numbers.values {
                read.append(number)
                if read.count == 2 { readTwo.fire() }
            }
            return read
        }
        await readTwo.wait()
        loop.cancel()
        let read = await loop.value
        print("values: for await read \(list(read)) from a flow that never finishes; cancelling the loop's task ended the loop without an error (as with AsyncStream)")
        print("values: and it cancelled the loop's subscription to the flow: the flow's onCancel ran \(times(subscriptionCancelled.count))")
    }
}
