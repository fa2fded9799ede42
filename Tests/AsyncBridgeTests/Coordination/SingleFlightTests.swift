@_spi(AsyncBridgeInternals) import AsyncBridge
import AsyncBridgeTesting
import Dispatch
import Testing

@Suite("SingleFlight: concurrent callers share one run", .timeLimit(.minutes(1)))
struct SingleFlightTests {
    @Test func aThousandConcurrentCallersShareOneRun() async throws {
        let flight = SingleFlight<String, Int, Never>()
        let runs = AtomicCounter()
        let gate = Gate()
        let values = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<1_000 {
                group.addTask {
                    try await flight.run(key: "token") {
                        runs.increment()
                        await gate.wait()
                        return 42
                    }
                }
            }
            try await waitUntil { flight.waiterCount(key: "token") == 1_000 }
            gate.open()
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(values.count == 1_000)
        #expect(values.allSatisfy { $0 == 42 })
        #expect(runs.value == 1)
        #expect(flight.flightCount == 0)
    }

    @Test func keysIsolateFlights() async throws {
        let flight = SingleFlight<String, String, Never>()
        let runs = AtomicCounter()
        let gate = Gate()
        @Sendable func call(_ key: String) async throws -> String {
            try await flight.run(key: key) {
                runs.increment()
                await gate.wait()
                return "value of \(key)"
            }
        }
        async let a1 = call("a")
        async let b1 = call("b")
        async let a2 = call("a")
        try await waitUntil { flight.waiterCount(key: "a") == 2 && flight.waiterCount(key: "b") == 1 }
        gate.open()
        #expect(try await [a1, a2, b1] == ["value of a", "value of a", "value of b"])
        #expect(runs.value == 2)
    }

    @Test func aFailureReachesEveryWaiterTyped() async throws {
        let flight = SingleFlight<Int, Int, TestError>()
        let gate = Gate()
        let operation: @Sendable () async throws(TestError) -> Int = { () async throws(TestError) -> Int in
            await gate.wait()
            throw TestError(code: 7)
        }
        let typed = Task { try await flight.result(key: 1, operation: operation) }
        let untyped = Task { try await flight.run(key: 1, operation: operation) }
        try await waitUntil { flight.waiterCount(key: 1) == 2 }
        gate.open()
        #expect(try await typed.value == .failure(TestError(code: 7)))
        await #expect(throws: TestError(code: 7)) { try await untyped.value }
    }

    @Test func cancellingOneWaiterLeavesTheOthersAndTheRun() async throws {
        let flight = SingleFlight<String, Bool, Never>()
        let gate = Gate()
        let operation: @Sendable () async -> Bool = {
            await gate.wait()
            return Task.isCancelled
        }
        let leaving = Task { try await flight.run(key: "k", operation: operation) }
        let staying = Task { try await flight.run(key: "k", operation: operation) }
        try await waitUntil { flight.waiterCount(key: "k") == 2 }
        leaving.cancel()
        await #expect(throws: CancellationError.self) { try await leaving.value }
        #expect(flight.waiterCount(key: "k") == 1)
        gate.open()
        #expect(try await staying.value == false, "the run was not cancelled")
    }

    @Test func whenTheLastWaiterLeavesTheRunIsCancelledOnce() async throws {
        let flight = SingleFlight<String, Int, Never>()
        let cancellation = CancellationGate()
        let runs = AtomicCounter()
        let operation: @Sendable () async -> Int = {
            runs.increment()
            await cancellation.waitForCancellation()
            return -1
        }
        let first = Task { try await flight.run(key: "k", operation: operation) }
        let second = Task { try await flight.run(key: "k", operation: operation) }
        try await waitUntil { flight.waiterCount(key: "k") == 2 }
        first.cancel()
        await #expect(throws: CancellationError.self) { try await first.value }
        #expect(cancellation.sawCancellation.callCount == 0, "another caller still waits")
        second.cancel()
        await #expect(throws: CancellationError.self) { try await second.value }
        await cancellation.sawCancellation.firstCall()
        #expect(cancellation.sawCancellation.callCount == 1)
        #expect(flight.flightCount == 0)
        // The abandoned flight is gone: the next call starts a run of its own operation.
        #expect(try await flight.run(key: "k") { 5 } == 5)
        #expect(runs.value == 1)
    }

    @Test func aPreCancelledCallerLeavesAtOnceAndCancelsTheRunItStarted() async throws {
        let flight = SingleFlight<String, Int, Never>()
        let cancellation = CancellationGate()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await flight.run(key: "k") {
                await cancellation.waitForCancellation()
                return 1
            }
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        await cancellation.sawCancellation.firstCall()
        #expect(cancellation.sawCancellation.callCount == 1)
    }

    @Test func afterAFlightEndsTheNextCallStartsANewRun() async throws {
        let flight = SingleFlight<Unkeyed, Int, Never>()
        let runs = AtomicCounter()
        let operation: @Sendable () async -> Int = {
            runs.increment()
            return runs.value
        }
        #expect(try await flight.run(operation: operation) == 1)
        #expect(try await flight.run(operation: operation) == 2)
        #expect(try await flight.result(operation: operation) == .success(3))
    }

    @Test func aWaiterThatCallsAgainWhenResumedStartsANewRun() async throws {
        // The flight leaves the table before its waiters resume: a waiter calling again at
        // once does not get the old result.
        let flight = SingleFlight<String, Int, Never>()
        let runs = AtomicCounter()
        let operation: @Sendable () async -> Int = {
            runs.increment()
            return runs.value
        }
        let first = try await flight.run(key: "k", operation: operation)
        let again = try await flight.run(key: "k", operation: operation)
        #expect([first, again] == [1, 2])
    }

    @Test func runToCompletionKeepsTheRunWhenEveryWaiterLeavesAndLaterCallersJoinIt() async throws {
        let flight = SingleFlight<String, String, Never>(policy: .runToCompletion)
        #expect(flight.policy == .runToCompletion)
        let runs = AtomicCounter()
        let gate = Gate()
        let leaving = Task {
            try await flight.run(key: "prompt") {
                runs.increment()
                await gate.wait()
                return Task.isCancelled ? "cancelled" : "answered"
            }
        }
        try await waitUntil { flight.waiterCount(key: "prompt") == 1 }
        leaving.cancel()
        await #expect(throws: CancellationError.self) { try await leaving.value }
        #expect(flight.waiterCount(key: "prompt") == 0)
        let later = Task { try await flight.run(key: "prompt") { "a second run" } }
        try await waitUntil { flight.waiterCount(key: "prompt") == 1 }
        gate.open()
        #expect(try await later.value == "answered")
        #expect(runs.value == 1)
    }

    @Test func theOperationMayCallRunForAnotherKey() async throws {
        let flight = SingleFlight<String, Int, any Error>()
        let value = try await flight.run(key: "outer") {
            let inner = try await flight.run(key: "inner") { 20 }
            return inner + 1
        }
        #expect(value == 21)
        #expect(flight.flightCount == 0)
    }

    @Test func theOperationIsReleasedWhenTheFlightEnds() async throws {
        let flight = SingleFlight<String, Int, Never>()
        let released = CompletionSpy<Void>()
        do {
            let captured = DeinitSignal(released)
            #expect(try await flight.run(key: "k") { withExtendedLifetime(captured) { 1 } } == 1)
        }
        await released.firstCall()
    }

    @Test func theOperationIsReleasedWhenItsCancelledRunEnds() async throws {
        let flight = SingleFlight<String, Int, Never>()
        let released = CompletionSpy<Void>()
        let cancellation = CancellationGate()
        do {
            let captured = DeinitSignal(released)
            let task = Task {
                try await flight.run(key: "k") {
                    await cancellation.waitForCancellation()
                    return withExtendedLifetime(captured) { 1 }
                }
            }
            await cancellation.suspended.firstCall()
            task.cancel()
            await #expect(throws: CancellationError.self) { try await task.value }
        }
        await released.firstCall()
    }

    @Test func aFutureOfTheFlightJoinsItAndKeepsItsResult() async throws {
        let flight = SingleFlight<String, Int, Never>()
        let runs = AtomicCounter()
        let gate = Gate()
        let future = flight.future(key: "k") {
            runs.increment()
            await gate.wait()
            return 7
        }
        #expect(runs.value == 0, "lazy")
        let viaFuture = Task { try await future.value }
        try await waitUntil { flight.waiterCount(key: "k") == 1 }
        let viaRun = Task { try await flight.run(key: "k") { 99 } }
        try await waitUntil { flight.waiterCount(key: "k") == 2 }
        gate.open()
        #expect(try await viaFuture.value == 7)
        #expect(try await viaRun.value == 7)
        #expect(try await future.result == .success(7), "the future keeps its result")
        #expect(runs.value == 1)
        #expect(try await flight.future(key: "k") { 8 }.value == 8, "a new future joins a new flight")
    }

    @Test func cancellingAFuturesLastConsumerLeavesTheFlightAsOneWaiter() async throws {
        let flight = SingleFlight<String, Int, Never>()
        let cancellation = CancellationGate()
        let future = flight.future(key: "k") {
            await cancellation.waitForCancellation()
            return 1
        }
        let spy = CompletionSpy<Result<Int, any Error>>()
        let token = future.subscribe(spy.completion)
        #expect(flight.waiterCount(key: "k") == 1)
        token.cancel()
        #expect(spy.callCount == 1)
        #expect((try? spy.calls[0].get()) == nil)
        await cancellation.sawCancellation.firstCall()
        #expect(flight.flightCount == 0)
    }

    @Test func aFlowOfTheFlightDeliversTheValueThenFinishes() async throws {
        let flight = SingleFlight<Unkeyed, Int, TestError>()
        let gate = Gate()
        let runs = AtomicCounter()
        let operation: @Sendable () async throws(TestError) -> Int = {
            runs.increment()
            await gate.wait()
            return 3
        }
        let first = FlowRecorder(flight.flow(operation: operation))
        let second = FlowRecorder(flight.flow(operation: operation))
        let leaving = FlowRecorder(flight.flow(operation: operation))
        #expect(flight.waiterCount(key: .shared) == 3)
        leaving.cancel()
        gate.open()
        await first.waitForCompletion()
        await second.waitForCompletion()
        #expect(first.events == [.value(3), .finished])
        #expect(second.events == [.value(3), .finished])
        #expect(leaving.events.isEmpty)
        #expect(runs.value == 1)
        let failing = FlowRecorder(flight.flow { () async throws(TestError) -> Int in throw TestError(code: 2) })
        await failing.waitForCompletion()
        #expect(failing.events == [.failure(TestError(code: 2))])
    }

    @Test func unkeyedFutureSharesTheOneFlight() async throws {
        let flight = SingleFlight<Unkeyed, Int, Never>()
        let gate = Gate()
        let future = flight.future {
            await gate.wait()
            return 1
        }
        let viaFuture = Task { try await future.value }
        try await waitUntil { flight.waiterCount(key: .shared) == 1 }
        let viaRun = Task { try await flight.run { 2 } }
        try await waitUntil { flight.waiterCount(key: .shared) == 2 }
        gate.open()
        #expect(try await [viaFuture.value, viaRun.value] == [1, 1])
    }

    /// A caller comes while the last waiter leaves: the flight's future is idle and its cancel
    /// action (held at the run's cancellation) has not taken it out of the table yet. The caller
    /// starts one new run, a caller after it joins that run, and no two runs of the key that
    /// are not cancelled overlap.
    @Test func aCallerArrivingAsTheLastWaiterLeavesStartsOneNewRunThatLaterCallersJoin() async throws {
        let flight = SingleFlight<String, Int, Never>()
        // Runs started, those waiting inside their cancellation handler's scope, and those
        // started and neither cancelled nor returned.
        let runs = SharedLock((started: 0, waiting: 0, live: Set<Int>(), overlaps: 0))
        let firstRunCancelling = CompletionSpy<Void>()
        let releaseFirstRun = DispatchSemaphore(value: 0)
        let gate = Gate()
        let operation: @Sendable () async -> Int = {
            let number = runs.withLock { runs -> Int in
                runs.started += 1
                if !runs.live.isEmpty { runs.overlaps += 1 }
                runs.live.insert(runs.started)
                return runs.started
            }
            await withTaskCancellationHandler {
                runs.withLock { $0.waiting += 1 }
                await gate.wait()
            } onCancel: {
                runs.withLock { _ = $0.live.remove(number) }
                if number == 1 {
                    firstRunCancelling.record(())
                    releaseFirstRun.wait()  // holds the thread that left, inside the cancel action
                }
            }
            runs.withLock { _ = $0.live.remove(number) }
            return number
        }
        @Sendable func waitingRuns() -> Int { runs.withLock { $0.waiting } }

        // The first waiter subscribes and leaves synchronously, so its cancel action runs on the
        // thread that cancels it, one that the test may hold.
        let leaving = flight.future(key: "k", operation: operation).subscribe { _ in }
        try await waitUntil { waitingRuns() == 1 }  // its cancellation reaches `onCancel` on the cancelling thread
        let left = CompletionSpy<Void>()
        DispatchQueue.global().async {
            leaving.cancel()
            left.record(())
        }
        await firstRunCancelling.firstCall()
        #expect(flight.flightCount == 1, "the abandoned flight is still in the table")

        let arriving = Task { try await flight.run(key: "k", operation: operation) }
        try await waitUntil { waitingRuns() == 2 }
        releaseFirstRun.signal()
        await left.firstCall()

        let later = CompletionSpy<Result<Int, any Error>>()
        _ = flight.future(key: "k", operation: operation).subscribe(later.completion)
        #expect(flight.waiterCount(key: "k") == 2, "the later caller did not join the arriving caller's run")
        gate.open()
        #expect(try await arriving.value == 2)
        _ = await later.firstCall()
        #expect(try later.calls.map { try $0.get() } == [2])
        #expect(runs.withLock { $0.started } == 2)
        #expect(runs.withLock { $0.overlaps } == 0, "two runs of the key were in progress at once")
        try await waitUntil { flight.flightCount == 0 }
    }

    /// A caller cancelled as it arrives races another caller arriving, the run starting and
    /// finishing: the other caller always gets a value, a run that runs to completion never
    /// overlaps another run of its key, and the table empties.
    @Test(arguments: [SingleFlightPolicy.cancelWhenUnused, .runToCompletion])
    func racingCancellationArrivalAndCompletion(policy: SingleFlightPolicy) async throws {
        let flight = SingleFlight<Int, Int, Never>(policy: policy)
        let inFlight = SharedLock((now: [Int: Int](), most: 0))  // runs in progress, per key
        for round in 0..<10_000 {
            let key = round  // a run that the cancelled caller started alone may outlive its round
            let operation: @Sendable () async -> Int = {
                inFlight.withLock { state in
                    state.now[key, default: 0] += 1
                    state.most = max(state.most, state.now[key, default: 0])
                }
                await Task.yield()
                inFlight.withLock { $0.now[key, default: 0] -= 1 }
                return round
            }
            let cancelled = Task { try await flight.run(key: key, operation: operation) }
            let kept = Task { try await flight.run(key: key, operation: operation) }
            cancelled.cancel()
            #expect(try await kept.value == round)
            if case .success(let value) = await cancelled.result { #expect(value == round) }
        }
        if policy == .runToCompletion { #expect(inFlight.withLock { $0.most } == 1) }
        // A run that the cancelled caller started alone may still be finishing; a flight left
        // in the table for good makes this wait hit the time limit.
        try await waitUntil { flight.flightCount == 0 }
    }
}
