import Dispatch
import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("Flow → AsyncSequence: values", .timeLimit(.minutes(1)))
struct FlowValuesTests {
    // MARK: Values, finish, failure

    @Test func neverFailingFlowNeedsNoTry() async {
        var received: [Int] = []
        for await value in Flow<Int, Never>.sequence(1...5).values {
            received.append(value)
        }
        #expect(received == [1, 2, 3, 4, 5])
    }

    @Test func typedFailureIsThrownOnceThenNil() async throws {
        let flow = Flow<Int, TestError>.create { emitter in
            emitter.send(1)
            emitter.send(2)
            emitter.fail(TestError(code: 7))
        }
        var iterator = flow.values.makeAsyncIterator()
        var received: [Int] = []
        do throws(TestError) {
            while let value = try await iterator.next() { received.append(value) }
            Issue.record("the failure was not thrown")
        } catch {
            #expect(error == TestError(code: 7))  // `error` is a TestError: no cast
        }
        #expect(received == [1, 2])
        #expect(try await iterator.next() == nil, "after the failure: nil")
        #expect(try await iterator.next() == nil)
    }

    @Test func forTryAwaitThrowsTheTypedFailure() async {
        let failing = Flow<Int, TestError>.sequence([1]).flatMap { _ in Flow<Int, TestError>.fail(TestError(code: 3)) }
        let result = await Result { () async throws(TestError) -> [Int] in
            var received: [Int] = []
            for try await value in failing.values { received.append(value) }
            return received
        }
        #expect(result == .failure(TestError(code: 3)))
    }

    @Test func finishingEndsTheSequenceForGood() async {
        let subject = LiveSubject<Int, Never>()
        var iterator = subject.flow.values.makeAsyncIterator()
        subject.send(1)
        subject.finish()
        #expect(await iterator.next() == 1)
        #expect(await iterator.next() == nil)
        #expect(await iterator.next() == nil)
    }

    @Test func aWaitingConsumerIsResumedFromAnotherThread() async throws {
        let source = ManualSource<Int>()
        let consumer = Task {
            var received: [Int] = []
            for try await value in source.flow.values { received.append(value) }
            return received
        }
        await source.subscribed()
        onPlainThread {
            for value in 0..<100 { source.send(value) }
            source.finish()
        }
        #expect(try await consumer.value == Array(0..<100))
    }

    // MARK: When the subscription starts and ends

    @Test func subscribesWhenTheIterationStarts() async {
        let subscriptions = AtomicCounter()
        let flow = Flow<Int, Never>.deferred { subscriptions.increment(); return .just(1) }
        let values = flow.values
        #expect(subscriptions.value == 0, "making the sequence subscribes to nothing")
        var iterator = values.makeAsyncIterator()
        #expect(subscriptions.value == 1, "makeAsyncIterator subscribes")
        #expect(await iterator.next() == 1)
        for await _ in values {}
        #expect(subscriptions.value == 2, "every iteration is a subscription of its own (cold)")
    }

    @Test func aHotFlowsValuesSentAfterMakeAsyncIteratorAreKept() async {
        let subject = LiveSubject<String, Never>()
        subject.send("lost: nobody subscribed")
        var iterator = subject.flow.values.makeAsyncIterator()
        subject.send("a")
        subject.send("b")
        #expect(await iterator.next() == "a")
        #expect(await iterator.next() == "b")
    }

    @Test func valuesSentWhileTheLoopBodyRunsAreBufferedAsInRxSwift() async {
        // Combine's `values` would drop them (it demands one value at a time); RxSwift's and
        // ours buffer them.
        let subject = LiveSubject<Int, Never>()
        var iterator = subject.flow.values.makeAsyncIterator()
        subject.send(0)
        var received: [Int] = []
        while let value = await iterator.next() {
            received.append(value)
            if value == 0 {
                for next in 1...3 { subject.send(next) }  // while the body runs
                subject.finish()
            }
        }
        #expect(received == [0, 1, 2, 3])
    }

    @Test func cancellingTheConsumingTaskEndsItAndCancelsTheSubscription() async throws {
        let source = ManualSource<Int>()
        let received = Countdown(1)
        let consumer = Task {
            var values: [Int] = []
            for try await value in source.flow.values {
                values.append(value)
                received.arrive()
            }
            return values
        }
        await source.subscribed()
        source.send(1)
        await received.wait()
        consumer.cancel()
        #expect(try await consumer.value == [1], "ends with nil, as AsyncStream does")
        #expect(source.cancels.value == 1, "the source's cancel action ran")
    }

    @Test func aCancelledTaskGetsNilEvenWithValuesBuffered() async throws {
        let source = ManualSource<Int>()
        let values = source.flow.values
        let consumer = Task {
            var iterator = values.makeAsyncIterator()
            await source.subscribed()
            source.send(1)
            source.send(2)
            cancellingCurrentTask()
            return try await iterator.next()
        }
        #expect(try await consumer.value == nil)
        #expect(source.cancels.value == 1)
    }

    @Test func cancellationRacingDeliveryEndsEveryRoundCleanly() async throws {
        for round in 0..<2_000 {
            let cancels = AtomicCounter()
            let cancelled = Countdown(1)
            let sent = Countdown(1)
            let flow = Flow<Int, Never>.create { emitter in
                onPlainThread {
                    for value in 0..<20 { emitter.send(value) }
                    sent.arrive()
                }
                emitter.onCancel {
                    cancels.increment()
                    cancelled.arrive()
                }
            }
            let stopAfter = round % 20
            let consumer = Task {
                var received: [Int] = []
                for await value in flow.values {
                    received.append(value)
                    if received.count == stopAfter { cancellingCurrentTask() }
                }
                return received
            }
            if stopAfter == 0 { consumer.cancel() }
            let received = await consumer.value
            if stopAfter == 0 {
                #expect(received == Array(0..<received.count), "a prefix, in order")
            } else {
                #expect(received == Array(0..<stopAfter), "nothing after the cancellation")
            }
            // The cancel action may run on the canceller's thread after the iteration has ended.
            await cancelled.wait()
            #expect(cancels.value == 1, "the subscription is cancelled exactly once")
            await sent.wait()
        }
    }

    @Test func releasingTheIteratorCancelsTheSubscription() async throws {
        let source = ManualSource<Int>()
        do {
            var iterator = source.flow.values.makeAsyncIterator()
            source.send(1)
            #expect(try await iterator.next() == 1)
            #expect(source.cancels.value == 0)
        }
        #expect(source.cancels.value == 1)
        for try await _ in source.flow.prepend(0).values {
            break
        }
        #expect(source.cancels.value == 2, "a break releases the iterator")
    }

    @Test func nothingIsCancelledAfterTheFlowFinished() async throws {
        let source = ManualSource<Int>()
        do {
            var iterator = source.flow.values.makeAsyncIterator()
            source.send(1)
            source.finish()
            #expect(try await iterator.next() == 1)
            #expect(try await iterator.next() == nil)
        }
        #expect(source.cancels.value == 0)
    }

    // MARK: Buffering policies

    @Test func bufferingOldestDropsNewValuesAndReportsThem() async throws {
        let source = ManualSource<Int>()
        let dropped = Collected<Int>()
        var iterator = source.flow.values(bufferingPolicy: .bufferingOldest(2), onDrop: dropped.append).makeAsyncIterator()
        for value in 1...5 { source.send(value) }
        source.finish()
        var received: [Int] = []
        while let value = try await iterator.next() { received.append(value) }
        #expect(received == [1, 2])
        #expect(dropped.all == [3, 4, 5])
    }

    @Test func bufferingNewestEvictsTheOldestAndReportsThem() async throws {
        let source = ManualSource<Int>()
        let dropped = Collected<Int>()
        var iterator = source.flow.values(bufferingPolicy: .bufferingNewest(2), onDrop: dropped.append).makeAsyncIterator()
        for value in 1...5 { source.send(value) }
        #expect(try await iterator.next() == 4)
        source.send(6)
        source.send(7)
        source.finish()
        var received: [Int] = []
        while let value = try await iterator.next() { received.append(value) }
        #expect(received == [6, 7])
        #expect(dropped.all == [1, 2, 3, 5])
    }

    @Test func bufferingNewestZeroKeepsOnlyWhatAWaitingConsumerTakes() async throws {
        let source = ManualSource<Int>()
        let dropped = Collected<Int>()
        let values = source.flow.values(bufferingPolicy: .bufferingNewest(0), onDrop: dropped.append)
        let received = Box<Int?>(nil)
        let consumer = Task {
            for try await value in values {
                received.value = value
                break
            }
        }
        await source.subscribed()
        // Every value sent while the consumer is not yet suspended in `next()` is dropped;
        // the first one sent while it is, it takes.
        let producerDone = Countdown(1)
        onPlainThread {
            var value = 1
            while received.value == nil {
                source.send(value)
                value += 1
            }
            producerDone.arrive()
        }
        try await consumer.value
        await producerDone.wait()
        let taken = try #require(received.value)
        #expect(dropped.all.prefix(taken - 1) == ArraySlice(1..<taken), "everything before it was dropped")
        #expect(!dropped.all.contains(taken))
    }

    @Test func droppedPlusReceivedIsEverythingSentFromAnotherThread() async {
        for policy in [FlowBufferingPolicy.bufferingNewest(4), .bufferingOldest(4)] {
            let dropped = AtomicCounter()
            let flow = Flow<Int, Never>.create { emitter in
                onPlainThread {
                    for value in 0..<10_000 { emitter.send(value) }
                    emitter.finish()
                }
            }
            var received: [Int] = []
            for await value in flow.values(bufferingPolicy: policy, onDrop: { _ in dropped.increment() }) {
                received.append(value)
            }
            #expect(received.count + dropped.value == 10_000, "\(policy)")
            #expect(received == received.sorted() && Set(received).count == received.count)
        }
    }

    @Test func unboundedKeepsEverythingInOrder() async {
        for _ in 0..<20 {
            let flow = Flow<Int, Never>.create { emitter in
                onPlainThread {
                    for value in 0..<10_000 { emitter.send(value) }
                    emitter.finish()
                }
            }
            var received: [Int] = []
            received.reserveCapacity(10_000)
            for await value in flow.values { received.append(value) }
            #expect(received == Array(0..<10_000))
        }
    }

    // MARK: Holding the producer

    @Test func blockingProducerHoldsAPlainThreadUntilTheConsumerTakesAValue() async {
        let limit = 2
        let sent = AtomicCounter()
        let subscribed = DispatchSemaphore(value: 0)
        let flow = Flow<Int, Never>.create { emitter in
            onPlainThread {
                subscribed.wait()  // values sent while the subscribe runs are never held
                for value in 0..<50 {
                    emitter.send(value)
                    sent.increment()
                }
                emitter.finish()
            }
        }
        var received: [Int] = []
        var overruns = 0
        var iterator = flow.values(bufferingPolicy: .blockingProducer(limit: limit)).makeAsyncIterator()
        subscribed.signal()
        while let value = await iterator.next() {
            received.append(value)
            // Values taken + values buffered bound the sends that have returned.
            if sent.value > received.count + limit { overruns += 1 }
        }
        #expect(received == Array(0..<50), "nothing dropped")
        #expect(overruns == 0, "the producer never ran more than \(limit) values ahead")
    }

    @Test func aProducerInATaskIsNeverHeld() async {
        let subject = LiveSubject<Int, Never>()
        var iterator = subject.flow.values(bufferingPolicy: .blockingProducer(limit: 1)).makeAsyncIterator()
        await Task.detached {
            for value in 0..<100 { subject.send(value) }  // would deadlock if held
            subject.finish()
        }.value
        var received: [Int] = []
        while let value = await iterator.next() { received.append(value) }
        #expect(received == Array(0..<100), "buffered beyond the limit, nothing dropped")
    }

    @Test func aSynchronousSourceSubscribedFromATaskIsNotHeld() async {
        // It emits on the task's thread, which is never held (the no-hold-while-subscribing
        // rule is exercised on plain threads, below).
        var received: [Int] = []
        for await value in Flow<Int, Never>.sequence(0..<100).values(bufferingPolicy: .blockingProducer(limit: 1)) {
            received.append(value)
        }
        #expect(received == Array(0..<100))
    }

    @Test func subscribingOnAPlainThreadDoesNotHoldItself() async {
        let done = Countdown(1)
        onPlainThread {
            // No task runs here: only the no-hold-while-subscribing rule keeps this from waiting
            // for a consumer that would run on this very thread.
            let iterator = Flow<Int, Never>.sequence(0..<10)
                .values(bufferingPolicy: .blockingProducer(limit: 1))
                .makeAsyncIterator()
            withExtendedLifetime(iterator) { done.arrive() }
        }
        await done.wait()
    }

    @Test func aThreadSendingWhileTheSubscribeWaitsForItIsNotHeld() async throws {
        // The source's subscribe waits for a thread that sends beyond the limit: holding that
        // thread deadlocked `makeAsyncIterator()`. It is made on a plain thread, so that a
        // deadlock blocks no thread of the test's pool and the test ends.
        let limit = 1
        let sentDuringSubscribe = DispatchSemaphore(value: 0)
        let subscribeReturned = DispatchSemaphore(value: 0)  // for the producer
        let iteratorMade = DispatchSemaphore(value: 0)  // for the test
        let sent = AtomicCounter()
        let flow = Flow<Int, Never>.create { emitter in
            onPlainThread {
                for value in 0..<3 {  // beyond the limit: buffered
                    emitter.send(value)
                    sent.increment()
                }
                sentDuringSubscribe.signal()
                subscribeReturned.wait()
                for value in 3..<20 {  // the subscribe has returned: held as usual
                    emitter.send(value)
                    sent.increment()
                }
                emitter.finish()
            }
            sentDuringSubscribe.wait()
        }
        let values = flow.values(bufferingPolicy: .blockingProducer(limit: limit))
        let consumer = Box<Task<(received: [Int], overruns: Int), Never>?>(nil)
        onPlainThread("consumer") {
            let iterator = values.makeAsyncIterator()
            consumer.value = Task {
                var iterator = iterator
                var received: [Int] = []
                var overruns = 0
                while let value = await iterator.next() {
                    received.append(value)
                    // Once the three sent during the subscribe are taken, the producer never
                    // runs more than `limit` values ahead.
                    if sent.value > max(received.count + limit, 3) { overruns += 1 }
                }
                return (received, overruns)
            }
            subscribeReturned.signal()
            iteratorMade.signal()
        }
        #expect(iteratorMade.wait(timeout: .now() + 10) == .success, "makeAsyncIterator() deadlocked")
        let result = try #require(consumer.value)
        let (received, overruns) = await result.value
        #expect(received == Array(0..<20), "nothing dropped")
        #expect(overruns == 0)
    }

    @Test func theConsumerSendingFromItsOwnLoopIsNotHeld() async {
        let subject = LiveSubject<Int, Never>()
        var iterator = subject.flow.values(bufferingPolicy: .blockingProducer(limit: 1)).makeAsyncIterator()
        subject.send(0)
        var received: [Int] = []
        while let value = await iterator.next() {
            received.append(value)
            if value < 10 {
                subject.send(value * 10 + 1)  // the consumer's own thread: buffered
                subject.send(value * 10 + 2)
            } else if received.count >= 7 {
                subject.finish()
            }
        }
        #expect(received == [0, 1, 2, 11, 12, 21, 22])
    }

    @Test func leavingReleasesAHeldProducer() async {
        let cancels = AtomicCounter()
        let producerDone = Countdown(1)
        let subscribed = DispatchSemaphore(value: 0)
        let flow = Flow<Int, Never>.create { emitter in
            onPlainThread {
                subscribed.wait()  // values sent while the subscribe runs are never held
                for value in 0..<100 { emitter.send(value) }  // held at the second value
                producerDone.arrive()
            }
            emitter.onCancel { cancels.increment() }
        }
        do {
            var iterator = flow.values(bufferingPolicy: .blockingProducer(limit: 1)).makeAsyncIterator()
            subscribed.signal()
            #expect(await iterator.next() == 0)
        }  // released, as a `break` releases it
        await producerDone.wait()
        #expect(cancels.value == 1)
    }

    @Test func cancellingTheConsumerReleasesAHeldProducer() async {
        let producerDone = Countdown(1)
        let sent = Countdown(2)
        let subscribed = DispatchSemaphore(value: 0)
        let flow = Flow<Int, Never>.create { emitter in
            onPlainThread {
                subscribed.wait()  // values sent while the subscribe runs are never held
                for value in 0..<100 {
                    emitter.send(value)
                    sent.arrive()
                }
                producerDone.arrive()
            }
        }
        let consumer = Task {
            var iterator = flow.values(bufferingPolicy: .blockingProducer(limit: 2)).makeAsyncIterator()
            subscribed.signal()
            await sent.wait()  // two values buffered: the producer is held at the third
            cancellingCurrentTask()
            return await iterator.next()
        }
        #expect(await consumer.value == nil)
        await producerDone.wait()
    }

    // MARK: Many consumers

    @Test func sharedFlowBroadcastsToEveryConsumer() async {
        let subject = LiveSubject<Int, Never>()
        let subscribed = Countdown(4)
        let share = subject.flow.share()
        // Tells of each consumer once the share holds it (`handleEvents(onSubscribe:)` would
        // tell before, and a value sent meanwhile would pass that consumer by).
        let shared = Flow<Int, Never>.create { emitter in
            let token = share.subscribe { event in
                switch event {
                case .value(let value): emitter.send(value)
                case .finished: emitter.finish()
                }
            }
            subscribed.arrive()
            emitter.onCancel { token.cancel() }
        }
        let consumers = (0..<4).map { _ in
            Task {
                var received: [Int] = []
                for await value in shared.values { received.append(value) }
                return received
            }
        }
        await subscribed.wait()
        onPlainThread {
            for value in 0..<1_000 { subject.send(value) }
            subject.finish()
        }
        for consumer in consumers {
            #expect(await consumer.value == Array(0..<1_000))
        }
    }

    // MARK: Leaks

    @Test func nothingIsRetainedAfterTheEnd() async {
        weak var weakTracked: Tracked?
        let subject = LiveSubject<Int, Never>()
        do {
            let tracked = Tracked()
            weakTracked = tracked
            var iterator = subject.flow.values(bufferingPolicy: .bufferingOldest(1), onDrop: { _ in _ = tracked }).makeAsyncIterator()
            subject.send(1)
            #expect(await iterator.next() == 1)
        }
        #expect(weakTracked == nil, "the released iterator left the subject, which let the storage go")

        let finishing = LiveSubject<Int, Never>()
        do {
            let tracked = Tracked()
            weakTracked = tracked
            var iterator = finishing.flow.values(bufferingPolicy: .unbounded, onDrop: { _ in _ = tracked }).makeAsyncIterator()
            finishing.finish()
            #expect(await iterator.next() == nil)
        }
        #expect(weakTracked == nil)

        let cancelled = LiveSubject<Int, Never>()
        do {
            let tracked = Tracked()
            weakTracked = tracked
            let values = cancelled.flow.values(bufferingPolicy: .unbounded, onDrop: { _ in _ = tracked })
            let consumer = Task {
                var iterator = values.makeAsyncIterator()
                cancellingCurrentTask()
                return await iterator.next()
            }
            #expect(await consumer.value == nil)
        }
        #expect(weakTracked == nil)
    }

    @Test func aCancelledConsumerReleasesItsBufferAndItsBatchAtOnce() async {
        let deaths = AtomicCounter()
        let source = ManualSource<Counted>()
        let values = source.flow.values
        let releasedWhileTheIteratorLives = await Task {
            var iterator = values.makeAsyncIterator()
            await source.subscribed()
            for _ in 0..<40 { source.send(Counted(deaths)) }  // the buffer grows
            _ = try? await iterator.next()  // takes the whole buffer as its batch: 39 left there
            for _ in 0..<20 { source.send(Counted(deaths)) }  // buffered again
            cancellingCurrentTask()
            let next = try? await iterator.next()
            #expect(next == nil)
            return withExtendedLifetime(iterator) { deaths.value }
        }.value
        #expect(releasedWhileTheIteratorLives == 60, "the batch's 39, the buffer's 20 and the one taken")
    }
}
