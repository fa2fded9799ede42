import AsyncAlgorithms
import AsyncBridge
import Dispatch

/// The concurrency spoke's cases: `values-throughput`, `channel-1to1`, `channel-1to4`.
///
/// Each operation is one value going from a producer on a thread of its own (a
/// `DispatchQueue(label:)`, which runs no Swift task) to a consumer task's `for await`; the
/// body times the whole run, so the figure is the throughput of the pair.
let concurrencyCases: [BenchmarkCase] = [
    BenchmarkCase(
        id: "values-throughput",
        peer: "AsyncStream (unbounded)",
        ratio: .speedup(atLeast: 5),
        allocations: .counted,
        ours: flowValuesThroughput,
        peerBody: asyncStreamThroughput
    ),
    BenchmarkCase(
        id: "values-throughput",
        peer: "AsyncAlgorithms AsyncChannel",
        ratio: .speedup(atLeast: nil),
        allocations: .counted,
        ours: flowValuesThroughput,
        peerBody: asyncChannelThroughput
    ),
    BenchmarkCase(
        id: "channel-1to1",
        peer: "AsyncStream (unbounded)",
        ratio: .speedup(atLeast: 5),
        allocations: .counted,
        ours: channelOneToOne,
        peerBody: asyncStreamThroughput
    ),
    BenchmarkCase(
        id: "channel-1to4",
        peer: "4 AsyncStreams, 1 producer",
        ratio: .speedup(atLeast: nil),
        allocations: .counted,
        ours: channelOneToFour,
        peerBody: asyncStreamsOneToFour
    ),
]

/// The producers' thread.
let producerQueue = DispatchQueue(label: "asyncbridge-bench.producer")

// MARK: values-throughput

/// `iterations` values sent by a `Flow.create` emitter on the producer queue, consumed with
/// `for await` over `flow.values`.
func flowValuesThroughput(_ iterations: Int) async throws {
    let count = opaque(iterations)
    let flow = Flow<Int, Never>.create { emitter in
        producerQueue.async {
            for value in 0..<count { emitter.send(value) }
            emitter.finish()
        }
    }
    var sum = 0
    for await value in flow.values { sum &+= value }
    blackHole(sum)
}

/// The same through an unbounded `AsyncStream`.
func asyncStreamThroughput(_ iterations: Int) async throws {
    let count = opaque(iterations)
    let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
    producerQueue.async {
        for value in 0..<count { continuation.yield(value) }
        continuation.finish()
    }
    var sum = 0
    for await value in stream { sum &+= value }
    blackHole(sum)
}

/// The same through swift-async-algorithms' `AsyncChannel`, whose `send` is async: the
/// producer is a detached task (it cannot run on a plain thread).
func asyncChannelThroughput(_ iterations: Int) async throws {
    let count = opaque(iterations)
    let channel = AsyncChannel<Int>()
    let producer = Task.detached {
        for value in 0..<count { await channel.send(value) }
        channel.finish()
    }
    var sum = 0
    for await value in channel { sum &+= value }
    blackHole(sum)
    await producer.value
}


// MARK: channel-1to1, channel-1to4

/// `iterations` values sent into a `BroadcastChannel` on the producer queue, consumed by one
/// task with `for await`.
func channelOneToOne(_ iterations: Int) async throws {
    let count = opaque(iterations)
    let channel = BroadcastChannel<Int, Never>()
    producerQueue.async {
        for value in 0..<count { channel.send(value) }  // kept for the consumer until it starts
        channel.finish()
    }
    var sum = 0
    for await value in channel { sum &+= value }
    blackHole(sum)
}

let channelConsumers = 4

/// `iterations` values sent into a `BroadcastChannel` on the producer queue, each consumed by
/// four tasks (four deliveries per value; the time is per value sent).
func channelOneToFour(_ iterations: Int) async throws {
    let count = opaque(iterations)
    let channel = BroadcastChannel<Int, Never>()
    let ready = BroadcastChannel<Void, Never>()
    var readiness = ready.makeAsyncIterator()
    let sums = await withTaskGroup(of: Int.self) { group in
        for _ in 0..<channelConsumers {
            group.addTask {
                var iterator = channel.makeAsyncIterator()  // a consumer from here on
                ready.send(())
                var sum = 0
                while let value = await iterator.next() { sum &+= value }
                return sum
            }
        }
        for _ in 0..<channelConsumers { _ = await readiness.next() }
        producerQueue.async {
            for value in 0..<count { channel.send(value) }
            channel.finish()
        }
        var sums: [Int] = []
        for await sum in group { sums.append(sum) }
        return sums
    }
    for sum in sums { blackHole(sum) }
}

/// The peer of `channel-1to4`: the same producer yields each value into four unbounded
/// `AsyncStream`s, one per consuming task: four deliveries per value, as on our side.
func asyncStreamsOneToFour(_ iterations: Int) async throws {
    let count = opaque(iterations)
    let streams = (0..<channelConsumers).map { _ in AsyncStream.makeStream(of: Int.self) }
    let sums = await withTaskGroup(of: Int.self) { group in
        for (stream, _) in streams {
            group.addTask {
                var sum = 0
                for await value in stream { sum &+= value }
                return sum
            }
        }
        producerQueue.async {
            for value in 0..<count {
                for (_, continuation) in streams { continuation.yield(value) }
            }
            for (_, continuation) in streams { continuation.finish() }
        }
        var sums: [Int] = []
        for await sum in group { sums.append(sum) }
        return sums
    }
    for sum in sums { blackHole(sum) }
}
