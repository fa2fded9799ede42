import AsyncBridge
import AsyncBridgeTesting
import Dispatch
import Testing

/// A serial queue that tells whether the current code runs on it.
private final class MarkedQueue: Sendable {
    let queue: DispatchQueue
    private let key = DispatchSpecificKey<Int>()

    init(_ label: String, attributes: DispatchQueue.Attributes = []) {
        queue = DispatchQueue(label: label, attributes: attributes)
        queue.setSpecific(key: key, value: 1)
    }

    var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == 1 }

    /// Returns once every block enqueued before it has run (a serial queue only). Events that
    /// arrive while a delivery block runs are delivered by a block scheduled after it: flush
    /// only where every event was sent before the delivery started.
    func flush() { queue.sync {} }
}

private actor Counter {
    var values: [Int] = []
    func append(_ value: Int) { values.append(value) }
}

@Suite("Flow: receive(on:) and subscribe(on:)", .timeLimit(.minutes(1)))
struct FlowReceiveTests {
    @Test func everyEventArrivesOnTheQueueInOrderAndNeverOnTheSendingThread() {
        let target = MarkedQueue("target")
        let events = Box<[FlowEvent<Int, TestError>]>([])
        let offQueue = AtomicCounter()
        let completed = DispatchSemaphore(value: 0)
        let subject = LiveSubject<Int, TestError>()
        let token = subject.flow.receive(on: target.queue).subscribe { event in
            if !target.isCurrent { offQueue.increment() }
            events.value.append(event)
            if case .failure = event { completed.signal() }
        }
        target.queue.sync {
            // Sent from the target queue itself: still delivered later, in a block of its own.
            subject.send(1)
            #expect(events.value.isEmpty, "delivered synchronously inside send")
        }
        subject.send(2)
        subject.send(3)
        subject.fail(TestError(code: 4))
        // Not `target.flush()`: a block that started before these sends ends at what it found
        // and schedules the rest behind whatever was enqueued meanwhile, the flush included.
        #expect(completed.wait(timeout: .now() + 10) == .success)
        #expect(events.value == [.value(1), .value(2), .value(3), .failure(TestError(code: 4))])
        #expect(offQueue.value == 0)
        token.cancel()
    }

    @Test func valuesFromManyThreadsKeepEachThreadsOrderOnAConcurrentQueue() {
        let target = DispatchQueue(label: "concurrent target", attributes: .concurrent)
        let subject = LiveSubject<Int, Never>()
        let received = Box<[Int]>([])
        let overlapping = AtomicCounter()
        let inside = AtomicCounter()
        let done = DispatchSemaphore(value: 0)
        let threads = 4, perThread = 500
        let token = subject.flow.receive(on: target).subscribe { event in
            inside.increment()
            if inside.value > 1 { overlapping.increment() }
            switch event {
            case .value(let value): received.value.append(value)
            case .finished, .failure: done.signal()
            }
            inside.decrement()
        }
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for index in 0..<perThread { subject.send(thread * perThread + index) }
        }
        subject.finish()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(overlapping.value == 0, "two deliveries overlapped")
        #expect(received.value.count == threads * perThread)
        for thread in 0..<threads {
            let mine = received.value.filter { $0 / perThread == thread }
            #expect(mine == Array(thread * perThread..<(thread + 1) * perThread))
        }
        token.cancel()
    }

    @Test func nothingArrivesAfterACancelOnTheQueue() {
        let target = MarkedQueue("target")
        let received = Box<[Int]>([])
        let token = Box<CancellationToken?>(nil)
        let completions = AtomicCounter()
        let gate = DispatchSemaphore(value: 0)
        target.queue.async { gate.wait() }  // holds the queue until everything is buffered
        token.value = Flow<Int, Never>.sequence(1...10).receive(on: target.queue).subscribe { event in
            switch event {
            case .value(let value):
                received.value.append(value)
                if value == 3 { token.value?.cancel() }
            case .finished, .failure:
                completions.increment()
            }
        }
        gate.signal()
        target.flush()
        #expect(received.value == [1, 2, 3])
        #expect(completions.value == 0)
    }

    @Test func aCancelAfterTheUpstreamCompletedStopsWhatWaitsForTheQueue() {
        let target = MarkedQueue("target")
        let events = Box<[FlowEvent<Int, Never>]>([])
        let gate = DispatchSemaphore(value: 0)
        target.queue.async { gate.wait() }
        // The upstream sends and finishes inside subscribe; everything waits for the queue.
        let token = Flow<Int, Never>.sequence([1, 2]).receive(on: target.queue).subscribe { events.value.append($0) }
        token.cancel()
        gate.signal()
        target.flush()
        #expect(events.value.isEmpty, "delivered after cancel() had returned: \(events.value)")
    }

    @Test func aCancelReleasesWhatWaitsAndCancelsTheUpstream() {
        let target = MarkedQueue("target")
        let gate = DispatchSemaphore(value: 0)
        target.queue.async { gate.wait() }
        let cancels = AtomicCounter()
        let emitter = Box<FlowEmitter<Tracked, Never>?>(nil)
        weak var waiting: Tracked?
        let token = Flow<Tracked, Never>.create { sink in
            emitter.value = sink
            sink.onCancel { cancels.increment() }
        }.receive(on: target.queue).subscribe { _ in }
        do {
            let value = Tracked()
            waiting = value
            emitter.value?.send(value)
        }
        #expect(waiting != nil, "the buffer holds the value until the queue takes it")
        token.cancel()
        #expect(waiting == nil, "cancel() released the value that waited")
        #expect(cancels.value == 1)
        gate.signal()
        target.flush()
        emitter.value = nil
    }

    @Test func aHandlerThatSendsIntoTheSourceIsServedAfterTheCurrentValue() {
        let target = MarkedQueue("target")
        let subject = LiveSubject<Int, Never>()
        let received = Box<[Int]>([])
        let token = subject.flow.receive(on: target.queue).subscribe { event in
            guard case .value(let value) = event else { return }
            received.value.append(value)
            if value < 3 { subject.send(value + 1) }
            received.value.append(-value)
        }
        subject.send(1)
        target.flush()
        target.flush()
        target.flush()
        #expect(received.value == [1, -1, 2, -2, 3, -3])
        token.cancel()
    }

    @Test func anActorReceivesEveryEventInOrderOnItsExecutor() async {
        let counter = Counter()
        let finished = CompletionSpy<Void>()
        let subject = LiveSubject<Int, Never>()
        let token = subject.flow.receive(on: counter).subscribe(
            onValue: { value in
                counter.assumeIsolated { $0.append(value) }  // traps if not on the actor
            },
            onCompletion: { _ in finished.record(()) }
        )
        for value in 0..<200 { subject.send(value) }
        subject.finish()
        _ = await finished.firstCall()
        #expect(await counter.values == Array(0..<200))
        token.cancel()
    }

    @Test func subscribeOnStartsTheSourceOnTheQueue() async {
        let start = MarkedQueue("start")
        let startedOnQueue = Box<Bool?>(nil)
        let recorder = FlowRecorder(Flow<Int, Never>.create { emitter in
            startedOnQueue.value = start.isCurrent
            emitter.send(1)
            emitter.finish()
        }.subscribe(on: start.queue))
        await recorder.waitForCompletion()
        #expect(startedOnQueue.value == true)
        #expect(recorder.events == [.value(1), .finished])
    }

    @Test func aSubscriptionCancelledBeforeItsStartRanNeverStarts() {
        let start = MarkedQueue("start")
        let gate = DispatchSemaphore(value: 0)
        start.queue.async { gate.wait() }
        let starts = AtomicCounter()
        let token = Flow<Int, Never>.create { _ in
            starts.increment()
        }.subscribe(on: start.queue).subscribe { _ in }
        token.cancel()
        gate.signal()
        start.flush()
        #expect(starts.value == 0)
    }

    @Test func subscribeOnAnActorStartsTheSourceOnItsExecutor() async {
        let counter = Counter()
        let recorder = FlowRecorder(Flow<Int, Never>.create { emitter in
            counter.assumeIsolated { $0.append(7) }  // traps if not on the actor
            emitter.send(1)
            emitter.finish()
        }.subscribe(on: counter))
        await recorder.waitForCompletion()
        #expect(await counter.values == [7])
        #expect(recorder.events == [.value(1), .finished])
    }
}
