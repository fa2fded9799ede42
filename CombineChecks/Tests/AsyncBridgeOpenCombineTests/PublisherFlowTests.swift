import AsyncBridge
import AsyncBridgeOpenCombine
import AsyncBridgeTesting
import Dispatch
import OpenCombine
import Testing

@Suite("Combine → Flow: Flow(publisher), publisher.flow", .timeLimit(.minutes(1)))
struct PublisherFlowTests {
    @Test func valuesAndFinishAreForwarded() {
        let subject = PassthroughSubject<Int, Never>()
        let recorder = FlowRecorder(Flow(subject))
        subject.send(1)
        subject.send(2)
        subject.send(completion: .finished)
        subject.send(3)
        #expect(recorder.events == [.value(1), .value(2), .finished])
    }

    @Test func theFailureIsForwardedTyped() {
        let subject = PassthroughSubject<Int, TestError>()
        let recorder = FlowRecorder(subject.flow)
        subject.send(1)
        subject.send(completion: .failure(TestError(code: 5)))
        #expect(recorder.events == [.value(1), .failure(TestError(code: 5))])
    }

    @Test func eachSubscriptionRequestsUnlimitedOnce() {
        let publisher = ManualPublisher<Int, Never>()
        let recorder = FlowRecorder(Flow(publisher))
        #expect(publisher.subscriptions == 1)
        #expect(publisher.requests == [.unlimited])
        publisher.send(1)
        publisher.send(2)
        #expect(recorder.values == [1, 2])
        let second = FlowRecorder(Flow(publisher))
        #expect(publisher.subscriptions == 2, "cold: each flow subscription subscribes")
        #expect(publisher.requests == [.unlimited, .unlimited])
        second.cancel()
        recorder.cancel()
    }

    @Test func cancellingTheFlowCancelsTheCombineSubscriptionOnce() {
        let subject = PassthroughSubject<Int, Never>()
        let cancels = Counter()
        let received = Locked<[Int]>([])
        let token = subject.handleEvents(receiveCancel: { cancels.increment() }).flow
            .subscribe(onValue: { value in received.withLock { $0.append(value) } }, onCompletion: { _ in })
        subject.send(1)
        token.cancel()
        #expect(cancels.value == 1)
        token.cancel()
        #expect(cancels.value == 1)
        subject.send(2)
        #expect(received.current == [1])
    }

    @Test func aSubscriptionHandedOverAfterTheCancellationIsCancelledAtOnce() {
        let publisher = ManualPublisher<Int, Never>()
        publisher.handsSubscriptionOverLater = true
        let token = Flow(publisher).subscribe { _ in }
        token.cancel()
        publisher.handOverSubscription()
        #expect(publisher.cancels == 1)
        #expect(publisher.requests == [], "nothing requested")
        #expect(publisher.subscription == nil, "and nothing keeps it")
    }

    @Test func aCompletedSubscriptionIsNotCancelled() {
        let publisher = ManualPublisher<Int, Never>()
        let token = Flow(publisher).subscribe { _ in }
        publisher.send(completion: .finished)
        token.cancel()
        #expect(publisher.cancels == 0)
    }

    @Test func cancellingFromInsideTheHandlerCancelsOnce() {
        let subject = PassthroughSubject<Int, Never>()
        let cancels = Counter()
        let token = Locked<CancellationToken?>(nil)
        let received = Locked<[Int]>([])
        let subscribed = subject.handleEvents(receiveCancel: { cancels.increment() }).flow.subscribe { event in
            if case .value(let value) = event { received.withLock { $0.append(value) } }
            token.current?.cancel()
        }
        token.withLock { $0 = subscribed }
        subject.send(1)
        subject.send(2)
        #expect(received.current == [1])
        #expect(cancels.value == 1)
    }

    @Test func aPublisherThatCompletesWhileSubscribingIsForwarded() {
        let recorder = FlowRecorder(Just(7).flow)
        #expect(recorder.events == [.value(7), .finished])
        let failing = FlowRecorder(Fail<Int, TestError>(error: TestError(code: 3)).flow)
        #expect(failing.events == [.failure(TestError(code: 3))])
    }

    @Test func valuesSentFromManyThreadsAllArriveOneAtATime() async {
        let threads = 4
        let perThread = 2_000
        // OpenCombine's PassthroughSubject is not marked Sendable; its send locks, so sending
        // from several threads is what Combine allows.
        nonisolated(unsafe) let subject = PassthroughSubject<Int, Never>()
        let inside = Locked((now: 0, overlaps: 0))
        let received = Locked<[Int]>([])
        let done = DispatchSemaphore(value: 0)
        let token = subject.flow.subscribe { event in
            inside.withLock { state in
                state.now += 1
                if state.now > 1 { state.overlaps += 1 }
            }
            switch event {
            case .value(let value): received.withLock { $0.append(value) }
            case .finished, .failure: done.signal()
            }
            inside.withLock { $0.now -= 1 }
        }
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for index in 0..<perThread { subject.send(thread * perThread + index) }
        }
        subject.send(completion: .finished)
        #expect(waitedInTime(done))
        #expect(Set(received.current).count == threads * perThread)
        #expect(received.current.count == threads * perThread)
        #expect(inside.current.overlaps == 0)
        token.cancel()
    }

    // MARK: Leaks

    @Test func subscriberAndSubscriptionAreReleasedAfterCancel() {
        let publisher = ManualPublisher<Int, Never>()
        let token = Flow(publisher).subscribe { _ in }
        #expect(publisher.subscriber != nil)
        #expect(publisher.subscription != nil)
        token.cancel()
        #expect(publisher.cancels == 1)
        #expect(publisher.subscriber == nil, "the forwarding subscriber is released")
        #expect(publisher.subscription == nil, "the Combine subscription is released")
    }

    @Test func theSubscriptionIsLetGoOnCompletionEvenIfThePublisherKeepsTheSubscriber() {
        // The subscription holds the forwarding subscriber after completing; the subscriber
        // must let the subscription go, or the two keep each other alive.
        let publisher = ManualPublisher<Int, Never>(releasesSubscriberOnCompletion: false)
        let token = Flow(publisher).subscribe { _ in }
        publisher.send(completion: .finished)
        #expect(publisher.subscription == nil, "the Combine subscription is released")
        #expect(publisher.subscriber == nil, "the forwarding subscriber is released")
        withExtendedLifetime(token) {}
    }

    @Test func subscriberAndSubscriptionAreReleasedAfterCompletion() {
        let publisher = ManualPublisher<Int, Never>()
        let token = Flow(publisher).subscribe { _ in }
        publisher.send(1)
        publisher.send(completion: .finished)
        #expect(publisher.subscriber == nil, "the forwarding subscriber is released")
        #expect(publisher.subscription == nil, "the Combine subscription is released")
        withExtendedLifetime(token) {}
    }
}

@Suite("Combine → AsyncSequence: publisher.values(bufferingPolicy:onDrop:)", .timeLimit(.minutes(1)))
struct PublisherValuesTests {
    @Test func unboundedKeepsWhatArrivesBeforeTheLoopAsks() async {
        // Combine's own `values` demands one value at a time, so a PassthroughSubject's sends
        // before the loop asks would be lost; these are buffered.
        let subject = PassthroughSubject<Int, Never>()
        var iterator = subject.values(bufferingPolicy: .unbounded).makeAsyncIterator()
        for value in 1...5 { subject.send(value) }
        subject.send(completion: .finished)
        var received: [Int] = []
        while let value = await iterator.next() { received.append(value) }
        #expect(received == [1, 2, 3, 4, 5])
    }

    @Test func bufferingNewestKeepsTheLatestAndReportsTheRest() async {
        let subject = PassthroughSubject<Int, Never>()
        let dropped = Locked<[Int]>([])
        var iterator = subject.values(bufferingPolicy: .bufferingNewest(2), onDrop: { value in dropped.withLock { $0.append(value) } })
            .makeAsyncIterator()
        for value in 1...5 { subject.send(value) }
        subject.send(completion: .finished)
        var received: [Int] = []
        while let value = await iterator.next() { received.append(value) }
        #expect(received == [4, 5])
        #expect(dropped.current == [1, 2, 3])
    }

    @Test func bufferingOldestKeepsTheFirstAndReportsTheRest() async {
        let subject = PassthroughSubject<Int, Never>()
        let dropped = Locked<[Int]>([])
        var iterator = subject.values(bufferingPolicy: .bufferingOldest(2), onDrop: { value in dropped.withLock { $0.append(value) } })
            .makeAsyncIterator()
        for value in 1...5 { subject.send(value) }
        subject.send(completion: .finished)
        var received: [Int] = []
        while let value = await iterator.next() { received.append(value) }
        #expect(received == [1, 2])
        #expect(dropped.current == [3, 4, 5])
    }

    @Test func theTypedFailureIsThrownAfterTheBufferedValues() async {
        let subject = PassthroughSubject<Int, TestError>()
        var iterator = subject.values(bufferingPolicy: .unbounded).makeAsyncIterator()
        subject.send(1)
        subject.send(2)
        subject.send(completion: .failure(TestError(code: 6)))
        var received: [Int] = []
        do throws(TestError) {
            while let value = try await iterator.next() { received.append(value) }
            Issue.record("the failure was not thrown")
        } catch {
            #expect(error == TestError(code: 6))
        }
        #expect(received == [1, 2])
    }

    @Test func leavingTheLoopCancelsTheCombineSubscription() async {
        let subject = PassthroughSubject<Int, Never>()
        let cancels = Counter()
        let values = subject.handleEvents(receiveCancel: { cancels.increment() })
            .values(bufferingPolicy: .unbounded)
        do {
            var iterator = values.makeAsyncIterator()
            subject.send(1)
            #expect(await iterator.next() == 1)
            #expect(cancels.value == 0)
        }
        #expect(cancels.value == 1, "releasing the iterator cancels")
    }

    @Test func cancellingTheTaskCancelsTheCombineSubscription() async {
        let subject = PassthroughSubject<Int, Never>()
        let cancels = Counter()
        let cancelled = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let values = subject.handleEvents(receiveCancel: {
            cancels.increment()
            cancelled.signal()
        }).values(bufferingPolicy: .unbounded)
        let task = Task {
            var iterator = values.makeAsyncIterator()
            started.signal()
            return await iterator.next()
        }
        await waitFor(started)
        task.cancel()
        #expect(await task.value == nil)
        await waitFor(cancelled)
        #expect(cancels.value == 1)
    }
}

/// Waits for `semaphore` on a thread of its own (with the deadlock detector's ten seconds),
/// leaving the test's task free.
func waitFor(_ semaphore: DispatchSemaphore, sourceLocation: SourceLocation = #_sourceLocation) async {
    let inTime = await withCheckedContinuation { done in
        DispatchQueue(label: "waitFor").async { done.resume(returning: waitedInTime(semaphore)) }
    }
    #expect(inTime, "timed out: deadlock?", sourceLocation: sourceLocation)
}
