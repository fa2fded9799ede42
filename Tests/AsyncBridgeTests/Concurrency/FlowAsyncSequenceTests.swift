import Testing
import AsyncBridge
import AsyncBridgeTesting

/// An async sequence that counts its iterations, and tells when each iterator is released.
struct CountingSequence: AsyncSequence, Sendable {
    typealias Element = Int
    typealias Failure = Never

    let limit: Int?
    let iterations = AtomicCounter()
    let pulls = AtomicCounter()
    let released = Countdown(1)
    let priorities = Collected<TaskPriority>()

    final class Iterator: AsyncIteratorProtocol {
        let sequence: CountingSequence
        var next = 0

        init(_ sequence: CountingSequence) { self.sequence = sequence }
        deinit { sequence.released.arrive() }

        func next(isolation actor: isolated (any Actor)?) async -> Int? {
            sequence.pulls.increment()
            sequence.priorities.append(Task.currentPriority)
            if let limit = sequence.limit, next >= limit { return nil }
            defer { next += 1 }
            return next
        }

        func next() async -> Int? { await next(isolation: nil) }
    }

    func makeAsyncIterator() -> Iterator {
        iterations.increment()
        return Iterator(self)
    }
}

/// An async sequence whose `next()` waits for cancellation, then ignores it until the test
/// lets it go.
struct StubbornSequence: AsyncSequence, Sendable {
    typealias Element = Int
    typealias Failure = Never

    let gate = CancellationGate()
    let release = Countdown(1)
    let released = Countdown(1)

    final class Iterator: AsyncIteratorProtocol {
        let sequence: StubbornSequence
        init(sequence: StubbornSequence) { self.sequence = sequence }
        deinit { sequence.released.arrive() }

        func next(isolation actor: isolated (any Actor)?) async -> Int? {
            await sequence.gate.waitForCancellation()
            await sequence.release.wait()
            return 1  // after cancellation: must not be delivered
        }
        func next() async -> Int? { await next(isolation: nil) }
    }

    func makeAsyncIterator() -> Iterator { Iterator(sequence: self) }
}

/// One value: whether its iterator was asked for it in the isolation of `expected`.
struct IsolationProbe: AsyncSequence, Sendable {
    typealias Element = Bool
    typealias Failure = Never
    let expected: any Actor

    struct AsyncIterator: AsyncIteratorProtocol {
        let expected: any Actor
        var done = false

        mutating func next(isolation actor: isolated (any Actor)?) async -> Bool? {
            if done { return nil }
            done = true
            return actor.map { $0 === expected } ?? false
        }

        mutating func next() async -> Bool? { await next(isolation: nil) }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(expected: expected) }
}

actor ProducerActor {}

@Suite("AsyncSequence → Flow", .timeLimit(.minutes(1)))
struct FlowAsyncSequenceTests {
    @Test func valuesThenFinishedWithTheSequencesFailureType() async {
        let stream = AsyncStream<Int> { continuation in
            for value in 1...3 { continuation.yield(value) }
            continuation.finish()
        }
        let flow = Flow(stream)
        let _: Flow<Int, Never> = flow  // AsyncStream cannot fail
        let recorder = FlowRecorder(flow)
        await recorder.waitForCompletion()
        #expect(recorder.events == [.value(1), .value(2), .value(3), .finished])
    }

    @Test func anUntypedThrowingSequenceFailsWithAnyError() async {
        let stream = AsyncThrowingStream<Int, any Error> { continuation in
            continuation.yield(1)
            continuation.finish(throwing: TestError(code: 9))
        }
        let flow = Flow(stream)
        let _: Flow<Int, any Error> = flow
        let recorder = FlowRecorder(flow)
        await recorder.waitForCompletion()
        #expect(recorder.values == [1])
        guard case .failure(let error)? = recorder.events.last else {
            Issue.record("no failure: \(recorder.events)")
            return
        }
        #expect(error as? TestError == TestError(code: 9))
    }

    @Test func roundTripKeepsValuesAndTheTypedFailure() async {
        let original = Flow<Int, TestError>.create { emitter in
            emitter.send(1)
            emitter.send(2)
            emitter.fail(TestError(code: 5))
        }
        let again = Flow(original.values)
        let _: Flow<Int, TestError> = again  // typed, through `FlowValues.Failure`
        let recorder = FlowRecorder(again)
        await recorder.waitForCompletion()
        #expect(recorder.events == [.value(1), .value(2), .failure(TestError(code: 5))])

        let finishing = FlowRecorder(Flow(Flow<Int, Never>.sequence(0..<1_000).values))
        await finishing.waitForCompletion()
        #expect(finishing.values == Array(0..<1_000) && finishing.isCompleted)
    }

    @Test func erasingGivesAnyError() async {
        let erased = Flow(erasing: Flow<Int, TestError>.fail(TestError(code: 2)).values)
        let _: Flow<Int, any Error> = erased
        let recorder = FlowRecorder(erased)
        await recorder.waitForCompletion()
        guard case .failure(let error)? = recorder.events.last else {
            Issue.record("no failure: \(recorder.events)")
            return
        }
        #expect(error as? TestError == TestError(code: 2))
        let finished = FlowRecorder(Flow(erasing: CountingSequence(limit: 2)))
        await finished.waitForCompletion()
        #expect(finished.values == [0, 1] && finished.isCompleted)
    }

    @Test func itIsLazyAndEverySubscriptionIteratesAgain() async {
        let sequence = CountingSequence(limit: 2)
        let flow = Flow(sequence)
        #expect(sequence.iterations.value == 0)
        let first = FlowRecorder(flow)
        await first.waitForCompletion()
        let second = FlowRecorder(flow)
        await second.waitForCompletion()
        #expect(sequence.iterations.value == 2)
        #expect(first.values == [0, 1] && second.values == [0, 1])
    }

    @Test func aSubscriberThatWantsNoMoreEndsTheIteration() async {
        let sequence = CountingSequence(limit: nil)  // endless
        let recorder = FlowRecorder(Flow(sequence).prefix(2))
        await recorder.waitForCompletion()
        await sequence.released.wait()  // the task left its loop and released the iterator
        #expect(recorder.events == [.value(0), .value(1), .finished])
        #expect(sequence.pulls.value == 2, "no value is pulled after the subscriber stopped")
    }

    @Test func cancellingTheSubscriptionCancelsTheTaskAndDeliversNothingMore() async {
        weak var weakTracked: Tracked?
        let sequence = StubbornSequence()
        let events = Collected<FlowEvent<Int, Never>>()
        let token: CancellationToken
        do {
            let tracked = Tracked()
            weakTracked = tracked
            token = Flow(sequence).subscribe { event in
                _ = tracked
                events.append(event)
            }
        }
        await sequence.gate.suspended.firstCall()
        token.cancel()
        await sequence.gate.sawCancellation.firstCall()  // the cancellation reached the sequence
        #expect(weakTracked == nil, "the subscriber is released though the task still runs")
        sequence.release.arrive()  // the sequence now returns a value, after the cancellation
        await sequence.released.wait()  // the task has seen it and left
        #expect(events.all.isEmpty)
    }

    @Test func theSequenceRunsOnTheActorItIsGivenAndOnTheGlobalExecutorOtherwise() async {
        let producer = ProducerActor()
        let onActor = FlowRecorder(Flow(IsolationProbe(expected: producer), on: producer))
        let global = FlowRecorder(Flow(IsolationProbe(expected: producer)))
        await onActor.waitForCompletion()
        await global.waitForCompletion()
        #expect(onActor.events == [.value(true), .finished])
        #expect(global.events == [.value(false), .finished])
    }

    @Test func thePriorityIsTheTasks() async {
        let sequence = CountingSequence(limit: 1)
        let recorder = FlowRecorder(Flow(sequence, priority: .low))
        await recorder.waitForCompletion()
        #expect(sequence.priorities.all.allSatisfy { $0 == .low }, "\(sequence.priorities.all)")
        #expect(!sequence.priorities.all.isEmpty)
    }
}
