// The concurrent-delivery check needs `Flow(run:)` (`@testable`): debug builds only (the release
// run of the tests builds the library without testability).
#if DEBUG
@testable import AsyncBridge
#else
import AsyncBridge
#endif
import AsyncBridgeTesting
import Dispatch
import Testing

/// The one sink every subscription the user holds ends in: nothing after a cancellation (from
/// the handler itself or from any thread), sources told to stop, one delivery at a time.
@Suite("Flow: the sink (nothing after cancel, stop reaches the source, one delivery at a time)", .timeLimit(.minutes(1)))
struct FlowSinkTests {
    // MARK: a handler that cancels itself

    @Test func aSynchronousSourceOnAQueueStopsWhenTheHandlerCancels() {
        let queue = DispatchQueue(label: "subscribe(on:)")
        let events = Box<[FlowEvent<Int, Never>]>([])
        let token = Box<CancellationToken?>(nil)
        _ = Flow<Int, Never>.sequence([1, 2, 3]).subscribe(on: queue).subscribe(onStart: { token.value = $0 }) { event in
            events.mutate { $0.append(event) }
            if case .value = event { token.value?.cancel() }
        }
        queue.sync {}  // the subscription ran on the queue
        #expect(events.value == [.value(1)])
    }

    @Test func firstSendsNoFinishAfterTheHandlerCancelled() {
        let subject = LiveSubject<Int, Never>()
        let events = eventsCancellingOnFirstValue(subject.flow.first()) { subject.send(1) }
        #expect(events == [.value(1)])
    }

    @Test func aFutureFlowSendsNoFinishAfterTheHandlerCancelled() {
        let completion = Box<(@Sendable (Result<Int, Never>) -> Void)?>(nil)
        let future = SharedFuture<Int, Never> { completion.value = $0 }
        let events = eventsCancellingOnFirstValue(Flow(future)) { completion.value?(.success(7)) }
        #expect(events == [.value(7)])
    }

    @Test func subscribeWithSendsNothingAfterTheHandlerCancelled() {
        let owner = Tracked()
        let events = Box<[Int]>([])
        let token = Box<CancellationToken?>(nil)
        let subject = LiveSubject<Int, Never>()
        token.value = subject.flow.first().subscribe(with: owner, onValue: { _, value in
            events.mutate { $0.append(value) }
            token.value?.cancel()
        }, onCompletion: { _, _ in events.mutate { $0.append(-1) } })
        subject.send(1)
        #expect(events.value == [1])
    }

    @Test func aHandlerThatCancelsStopsASynchronousSourceAtOnce() {
        let produced = AtomicCounter()
        let source = Flow<Int, Never>.sequence(0..<1_000_000).handleEvents(onValue: { _ in produced.increment() })
        #expect(eventsCancellingOnFirstValueFromTheStart(source) == [.value(0)])
        #expect(produced.value == 1, "the source kept producing after the handler cancelled")
    }

    @Test func anEmitterLearnsThatNobodyListens() {
        let sent = AtomicCounter()
        let flow = Flow<Int, Never>.create { emitter in
            var next = 0
            while !emitter.isCancelled, next < 100_000 {  // bounded: a regression fails, not hangs
                emitter.send(next)
                sent.increment()
                next += 1
            }
        }
        #expect(eventsCancellingOnFirstValueFromTheStart(flow) == [.value(0)])
        #expect(sent.value == 1)
        let recorder = FlowRecorder(flow.prefix(3))
        #expect(recorder.events == [.value(0), .value(1), .value(2), .finished])
    }

    @Test func anEmitterIsCancelledOnceItsFlowCompleted() {
        let afterFinish = Box<Bool?>(nil)
        _ = Flow<Int, Never>.create { emitter in
            #expect(!emitter.isCancelled)
            emitter.finish()
            afterFinish.value = emitter.isCancelled
        }.subscribe { _ in }
        #expect(afterFinish.value == true)
    }

    @Test func aTokenCancelledInOnStartRunsNothing() {
        let runs = AtomicCounter()
        let source = Flow<Int, Never>.deferred {
            runs.increment()
            return .just(1)
        }
        let events = Box<[FlowEvent<Int, Never>]>([])
        let token = source.subscribe(onStart: { $0.cancel() }) { event in events.mutate { $0.append(event) } }
        #expect(token.isCancelled)
        #expect(runs.value == 0)
        #expect(events.value.isEmpty)
    }

    // MARK: cancel from two threads

    /// Two threads cancel one token, each then sends on the subject: whichever `cancel()`
    /// returned first or second, the handler must get nothing. Before the gate, the second call
    /// returned before the first had reached the subject, in about one round in five.
    @Test func aSecondConcurrentCancelHasTakenEffectWhenItReturns() {
        let late = AtomicCounter()
        for round in 0..<2_000 {
            let subject = LiveSubject<Int, Never>()
            let token = subject.flow.subscribe(onValue: { _ in late.increment() }, onCompletion: { _ in })
            DispatchQueue.concurrentPerform(iterations: 2) { _ in
                token.cancel()
                #expect(token.isCancelled)
                subject.send(round)
            }
            if late.value > 0 { break }
        }
        #expect(late.value == 0, "a value arrived after a cancel() had returned")
    }

    @Test func isCancelledMeansCancelNotCompletion() {
        let token = Flow<Int, Never>.just(1).subscribe { _ in }
        #expect(!token.isCancelled)
        token.cancel()
        #expect(token.isCancelled)
    }

    // MARK: one delivery at a time

    #if DEBUG
    /// A source that breaks the one-at-a-time rule (it calls its subscriber from a second thread
    /// while a delivery is under way) is stopped with a message naming the subscriber.
    @Test func twoConcurrentDeliveriesToOneSubscriberTrapInDebugBuilds() async {
        await #expect(processExitsWith: .failure) {
            let inside = DispatchSemaphore(value: 0)
            let racing = Flow<Int, Never> { subscriber in
                DispatchQueue.global().async {
                    inside.wait()
                    _ = subscriber.receive(1)  // while 0 is being delivered: traps
                }
                _ = subscriber.receive(0)
            }
            let never = DispatchSemaphore(value: 0)
            _ = racing.subscribe(onValue: { value in
                inside.signal()
                never.wait()  // holds the first delivery open until the trap ends the process
            }, onCompletion: { _ in })
        }
    }

    /// A delivery made from inside a handler on the same thread (a re-entrant source) is not
    /// mistaken for a concurrent one.
    @Test func aReentrantDeliveryOnTheSameThreadIsNotReported() {
        let held = Box<FlowSubscriber<Int, Never>?>(nil)
        let source = Flow<Int, Never> { subscriber in
            held.value = subscriber
            _ = subscriber.receive(0)
        }
        let events = Box<[Int]>([])
        let token = source.subscribe(onValue: { value in
            events.mutate { $0.append(value) }
            if value == 0 { _ = held.value?.receive(1) }
        }, onCompletion: { _ in })
        #expect(events.value == [0, 1])
        token.cancel()
        held.value = nil
    }
    #endif
}

/// The events of `flow` to a handler that cancels its subscription at the first value, through
/// the token `subscribe(onStart:_:)` hands over before the flow runs: for synchronous sources.
func eventsCancellingOnFirstValueFromTheStart<Element, Failure>(_ flow: Flow<Element, Failure>) -> [FlowEvent<Element, Failure>] {
    let events = Box<[FlowEvent<Element, Failure>]>([])
    let token = Box<CancellationToken?>(nil)
    _ = flow.subscribe(onStart: { token.value = $0 }) { event in
        events.mutate { $0.append(event) }
        if case .value = event { token.value?.cancel() }
    }
    return events.value
}

/// Sharing operators stop a synchronous upstream once nobody listens.
@Suite("Flow: share, publish and refCount stop their connection's upstream", .timeLimit(.minutes(1)))
struct ShareStopsUpstreamTests {
    static func counted(_ produced: AtomicCounter) -> Flow<Int, Never> {
        Flow<Int, Never>.sequence(1...100_000).handleEvents(onValue: { _ in produced.increment() })
    }

    @Test func shareFirstStopsTheUpstreamAfterOneValue() {
        let produced = AtomicCounter()
        let recorder = FlowRecorder(Self.counted(produced).share().first())
        #expect(recorder.events == [.value(1), .finished])
        #expect(produced.value == 1)
    }

    @Test func publishRefCountFirstStopsTheUpstreamAfterOneValue() {
        let produced = AtomicCounter()
        let recorder = FlowRecorder(Self.counted(produced).publish().refCount().first())
        #expect(recorder.events == [.value(1), .finished])
        #expect(produced.value == 1)
    }

    @Test func shareStopsItsUpstreamWhenTheHandlerCancels() {
        let produced = AtomicCounter()
        let events = eventsCancellingOnFirstValueFromTheStart(Self.counted(produced).share())
        #expect(events == [.value(1)])
        #expect(produced.value == 1)
    }
}
