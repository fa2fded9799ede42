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

