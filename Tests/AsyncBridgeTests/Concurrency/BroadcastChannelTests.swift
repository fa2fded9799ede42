import Testing
import AsyncBridge
import AsyncBridgeTesting

/// Drains an iterator: its values, and the failure if it threw.
func drain<Element, Failure>(
    _ iterator: inout BroadcastChannel<Element, Failure>.Iterator
) async -> (values: [Element], failure: Failure?) {
    var values: [Element] = []
    do throws(Failure) {
        while let value = try await iterator.next() { values.append(value) }
        return (values, nil)
    } catch {
        return (values, error)
    }
}

@Suite("BroadcastChannel", .timeLimit(.minutes(1)))
struct BroadcastChannelTests {
    // MARK: Order

    @Test func valuesFromOneThreadArriveInOrder() async {
        let channel = BroadcastChannel<Int, Never>()
        var iterator = channel.makeAsyncIterator()
        onPlainThread {
            for value in 0..<10_000 { channel.send(value) }
            channel.finish()
        }
        #expect(await drain(&iterator).values == Array(0..<10_000))
    }

    @Test func sendersOnManyThreadsLoseNothingAndKeepTheirOrder() async {
        let senders = 4, perSender = 2_500
        let channel = BroadcastChannel<Int, Never>()
        var first = channel.makeAsyncIterator(), second = channel.makeAsyncIterator()
        let sent = Countdown(senders)
        for sender in 0..<senders {
            onPlainThread("sender \(sender)") {
                for index in 0..<perSender { channel.send(sender * perSender + index) }
                sent.arrive()
            }
        }
        Task {
            await sent.wait()
            channel.finish()
        }
        let a = await drain(&first).values, b = await drain(&second).values
        #expect(a.count == senders * perSender && Set(a).count == a.count, "nothing lost or repeated")
        for sender in 0..<senders {
            let own = a.filter { $0 / perSender == sender }
            #expect(own == Array(sender * perSender..<(sender + 1) * perSender), "sender \(sender)'s order")
        }
        #expect(a == b, "every consumer sees the same order")
    }

    @Test func aConsumerSendingFromItsOwnLoop() async {
        let channel = BroadcastChannel<Int, Never>()
        channel.send(0)
        var received: [Int] = []
        for await value in channel {
            received.append(value)
            if value < 5 { channel.send(value + 1) } else { channel.finish() }
        }
        #expect(received == [0, 1, 2, 3, 4, 5])
    }

    // MARK: Who gets what

    @Test func valuesSentBeforeTheFirstLoopAreKeptForIt() async {
        let channel = BroadcastChannel<String, Never>()
        channel.send("a")  // nobody iterates yet
        channel.send("b")
        var first = channel.makeAsyncIterator()
        var second = channel.makeAsyncIterator()
        channel.send("c")
        channel.finish()
        #expect(await drain(&first).values == ["a", "b", "c"])
        #expect(await drain(&second).values == ["c"], "the backlog is not replayed to later consumers")
    }

    @Test func aConsumerStartingWhileTheSenderRunsGetsEverything() async {
        for _ in 0..<1_000 {
            let channel = BroadcastChannel<Int, Never>()
            onPlainThread {
                for value in 0..<50 { channel.send(value) }
                channel.finish()
            }
            var received: [Int] = []
            for await value in channel { received.append(value) }
            #expect(received == Array(0..<50))
        }
    }

    @Test func finishAndFailReachEveryConsumer() async throws {
        let finishing = BroadcastChannel<Int, TestError>()
        var iterators = (0..<3).map { _ in finishing.makeAsyncIterator() }
        finishing.send(1)
        finishing.finish()
        finishing.fail(TestError())  // ignored: the first completion counts
        finishing.send(2)  // ignored
        for index in iterators.indices {
            let (values, failure) = await drain(&iterators[index])
            #expect(values == [1] && failure == nil)
        }

        let failing = BroadcastChannel<Int, TestError>()
        iterators = (0..<3).map { _ in failing.makeAsyncIterator() }
        failing.send(1)
        failing.fail(TestError(code: 8))
        for index in iterators.indices {
            let (values, failure) = await drain(&iterators[index])
            #expect(values == [1] && failure == TestError(code: 8))
            #expect(try await iterators[index].next() == nil, "thrown once, then nil")
        }
    }

    @Test func theCompletionReachesWaitingConsumersOnAnotherThread() async {
        let channel = BroadcastChannel<Int, TestError>()
        let started = Countdown(3)
        let consumers = (0..<3).map { _ in
            Task {
                var iterator = channel.makeAsyncIterator()
                started.arrive()
                return await drain(&iterator)
            }
        }
        await started.wait()
        onPlainThread { channel.fail(TestError(code: 3)) }
        for consumer in consumers {
            let (values, failure) = await consumer.value
            #expect(values.isEmpty && failure == TestError(code: 3))
        }
    }

    @Test func aLateConsumerGetsTheCompletion() async {
        let channel = BroadcastChannel<Int, Never>()
        channel.send(1)  // kept for the first consumer
        channel.finish()
        var first = channel.makeAsyncIterator()
        #expect(await drain(&first).values == [1])
        var late = channel.makeAsyncIterator()
        #expect(await late.next() == nil)
    }

    @Test func releasingTheChannelFinishesItsLoops() async {
        var channel: BroadcastChannel<Int, Never>? = BroadcastChannel()
        let started = Countdown(1)
        let consumer = Task { [weak channel] in
            guard var iterator = channel?.makeAsyncIterator() else { return [Int]() }
            started.arrive()
            var values: [Int] = []
            while let value = await iterator.next() { values.append(value) }
            return values
        }
        await started.wait()
        channel?.send(1)
        channel = nil
        #expect(await consumer.value == [1])
    }

    // MARK: Consumers leaving

    @Test func cancellingOneConsumerEndsOnlyItsLoop() async {
        let channel = BroadcastChannel<Int, Never>()
        let received = Countdown(2)
        let cancelled = Task {
            var values: [Int] = []
            var iterator = channel.makeAsyncIterator()
            received.arrive()
            while let value = await iterator.next() { values.append(value) }
            return values
        }
        var other = channel.makeAsyncIterator()
        received.arrive()
        await received.wait()
        channel.send(1)
        #expect(await other.next() == 1)
        cancelled.cancel()
        let values = await cancelled.value
        #expect(values == [] || values == [1], "ended with nil")
        channel.send(2)
        channel.finish()
        #expect(await drain(&other).values == [2], "the other consumer goes on")
    }

    @Test func aReleasedIteratorIsNoLongerAConsumer() async {
        let channel = BroadcastChannel<Int, Never>()
        do {
            var leaving = channel.makeAsyncIterator()
            channel.send(1)
            #expect(await leaving.next() == 1)
        }
        channel.send(2)  // nobody iterates: kept for the next consumer
        channel.finish()
        var next = channel.makeAsyncIterator()
        #expect(await drain(&next).values == [2])
    }

    @Test func consumersComingAndGoingWhileSending() async {
        for round in 0..<500 {
            let channel = BroadcastChannel<Int, Never>()
            let sent = Countdown(1)
            onPlainThread {
                for value in 0..<40 { channel.send(value) }
                sent.arrive()
            }
            let stopAfter = round % 10 + 1
            let received = await Task {
                var received: [Int] = []
                for await value in channel {
                    received.append(value)
                    if received.count == stopAfter { cancellingCurrentTask() }
                }
                return received
            }.value
            #expect(received == Array(0..<stopAfter))
            await sent.wait()
            channel.finish()
        }
    }

    // MARK: Buffering policies

    @Test func bufferingNewestDropsPerConsumerAndReportsEachDrop() async {
        let dropped = Collected<Int>()
        let channel = BroadcastChannel<Int, Never>(bufferingPolicy: .bufferingNewest(2), onDrop: dropped.append)
        var a = channel.makeAsyncIterator(), b = channel.makeAsyncIterator()
        for value in 1...5 { channel.send(value) }
        channel.finish()
        #expect(await drain(&a).values == [4, 5])
        #expect(await drain(&b).values == [4, 5])
        #expect(dropped.all == [1, 1, 2, 2, 3, 3], "once per consumer that dropped it")
    }

    @Test func bufferingOldestDropsNewValues() async {
        let dropped = Collected<Int>()
        let channel = BroadcastChannel<Int, Never>(bufferingPolicy: .bufferingOldest(2), onDrop: dropped.append)
        for value in 1...5 { channel.send(value) }  // the backlog has the policy too
        var iterator = channel.makeAsyncIterator()
        channel.send(6)
        #expect(await iterator.next() == 1)
        channel.send(7)
        channel.finish()
        #expect(await drain(&iterator).values == [2, 7])
        #expect(dropped.all == [3, 4, 5, 6])
    }

    @Test func droppedPlusReceivedIsEverythingSent() async {
        let dropped = AtomicCounter()
        let channel = BroadcastChannel<Int, Never>(bufferingPolicy: .bufferingNewest(8), onDrop: { _ in dropped.increment() })
        var iterator = channel.makeAsyncIterator()
        onPlainThread {
            for value in 0..<20_000 { channel.send(value) }
            channel.finish()
        }
        let received = await drain(&iterator).values
        #expect(received.count + dropped.value == 20_000)
        #expect(received == received.sorted())
    }

    // MARK: The flow view

    @Test func theFlowViewIsAConsumer() async {
        let channel = BroadcastChannel<Int, TestError>()
        let recorder = FlowRecorder(channel.flow)
        channel.send(1)
        channel.send(2)
        channel.fail(TestError(code: 4))
        await recorder.waitForCompletion()
        #expect(recorder.events == [.value(1), .value(2), .failure(TestError(code: 4))])
    }

    @Test func cancellingTheFlowViewLeaves() async {
        let channel = BroadcastChannel<Int, Never>()
        let recorder = FlowRecorder(channel.flow)
        channel.send(1)
        await recorder.waitForValues(1)
        recorder.cancel()
        channel.send(2)  // the flow left: kept for the next consumer
        channel.finish()
        var next = channel.makeAsyncIterator()
        #expect(await drain(&next).values == [2])
        #expect(recorder.events == [.value(1)])
    }

    @Test func aFlowSubscriberCancellingFromItsHandlerLeavesAtOnce() async {
        let dropped = Collected<Int>()
        let channel = BroadcastChannel<Int, Never>(onDrop: dropped.append)
        let token = Box<CancellationToken?>(nil)
        let done = Countdown(1)
        token.value = channel.flow.subscribe(onValue: { value in
            guard value == 1 else { return }
            token.value?.cancel()
            channel.send(2)   // nobody consumes now: kept for the next consumer
            channel.finish()
            done.arrive()
        }, onCompletion: { _ in })
        channel.send(1)
        await done.wait()
        var next = channel.makeAsyncIterator()
        #expect(await drain(&next).values == [2])
        #expect(dropped.all.isEmpty)
    }

    // MARK: Leaks

    @Test func nothingIsRetainedOnceTheChannelAndItsConsumersAreGone() async {
        weak var weakTracked: Tracked?
        weak var weakChannel: BroadcastChannel<Int, Never>?
        do {
            let tracked = Tracked()
            weakTracked = tracked
            let channel = BroadcastChannel<Int, Never>(onDrop: { _ in _ = tracked })
            weakChannel = channel
            var iterator = channel.makeAsyncIterator()
            channel.send(1)
            #expect(await iterator.next() == 1)
            let cancelled = Task {
                var iterator = channel.makeAsyncIterator()
                cancellingCurrentTask()
                return await iterator.next()
            }
            #expect(await cancelled.value == nil)
        }
        #expect(weakChannel == nil)
        #expect(weakTracked == nil)
    }

    @Test func aCancelledConsumerReleasesItsBufferAndItsBatchAtOnce() async {
        let deaths = AtomicCounter()
        let channel = BroadcastChannel<Counted, Never>()
        let releasedWhileTheIteratorLives = await Task {
            var iterator = channel.makeAsyncIterator()
            for _ in 0..<40 { channel.send(Counted(deaths)) }  // the buffer grows
            _ = await iterator.next()  // takes the whole buffer as its batch: 39 left there
            for _ in 0..<20 { channel.send(Counted(deaths)) }  // buffered again
            cancellingCurrentTask()
            let next = await iterator.next()
            #expect(next == nil)
            return withExtendedLifetime(iterator) { deaths.value }
        }.value
        #expect(releasedWhileTheIteratorLives == 60, "the batch's 39, the buffer's 20 and the one taken")
    }
}
