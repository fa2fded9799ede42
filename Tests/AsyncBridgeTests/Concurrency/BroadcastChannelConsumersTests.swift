import AsyncBridge
import AsyncBridgeTesting
import Testing

@Suite("BroadcastChannel: waiting for consumers", .timeLimit(.minutes(1)))
struct BroadcastChannelConsumersTests {
    /// The first day's case: two loops started in tasks, then values sent at once. Waiting for
    /// both consumers first, each loop gets every value.
    @Test func loopsStartedInTasksGetEverythingSentOnceTheyIterate() async {
        for _ in 0..<50 {
            let channel = BroadcastChannel<Int, Never>()
            let summary = Task { await collect(channel) }
            let detail = Task { await collect(channel) }
            await channel.waitForConsumers(2)
            for value in 1...3 { channel.send(value) }
            channel.finish()
            #expect(await summary.value == [1, 2, 3])
            #expect(await detail.value == [1, 2, 3])
        }
    }

    @Test func returnsAtOnceWhenEnoughConsumersIterate() async {
        let channel = BroadcastChannel<Int, Never>()
        let first = channel.makeAsyncIterator()
        let second = channel.makeAsyncIterator()
        await channel.waitForConsumers(2)
        await channel.waitForConsumers(0)
        _ = (first, second)
    }

    @Test func aSubscriptionToTheFlowIsAConsumer() async {
        let channel = BroadcastChannel<Int, Never>()
        let recorder = FlowRecorder(channel.flow)
        await channel.waitForConsumers(1)
        channel.send(7)
        await recorder.waitForValues(1)
        #expect(recorder.values == [7])
        recorder.cancel()
    }

    /// A consumer that left does not count: the wait ends only when a new one starts.
    @Test func consumersThatLeftDoNotCount() async {
        let channel = BroadcastChannel<Int, Never>()
        do { _ = channel.makeAsyncIterator() }   // starts and leaves at once
        let returned = CompletionSpy<Void>()
        let waiting = Task {
            await channel.waitForConsumers(1)
            returned.record(())
        }
        for _ in 0..<100 { await Task.yield() }
        #expect(returned.callCount == 0)
        let consumer = channel.makeAsyncIterator()
        await waiting.value
        #expect(returned.callCount == 1)
        _ = consumer
    }

    @Test func cancellingTheWaitingTaskEndsTheWait() async {
        let channel = BroadcastChannel<Int, Never>()
        let waiting = Task { await channel.waitForConsumers(3) }
        waiting.cancel()
        await waiting.value
    }
}

private func collect(_ channel: BroadcastChannel<Int, Never>) async -> [Int] {
    var values: [Int] = []
    for await value in channel { values.append(value) }
    return values
}
