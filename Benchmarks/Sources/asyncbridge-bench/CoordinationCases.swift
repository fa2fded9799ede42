@_spi(AsyncBridgeInternals) import AsyncBridge

/// The coordination spoke's cases: `single-flight-1000`.
let coordinationCases: [BenchmarkCase] = [
    BenchmarkCase(
        id: "single-flight-1000",
        peer: "actor holding a Task?",
        ratio: .speedup(atLeast: nil),
        allocations: .notCounted,
        ours: singleFlightRounds,
        peerBody: actorCoalescerRounds
    ),
]

// MARK: single-flight-1000

/// Callers per round.
let singleFlightCallers = 1_000

/// A round that did not coalesce into exactly one run: the case fails loudly.
struct CoalescingFailed: Error, CustomStringConvertible {
    let runs: Int
    let total: Int
    let expected: Int
    var description: String {
        "single-flight-1000: a round made \(runs) runs (expected 1) and a total of \(total) (expected \(expected))"
    }
}

/// One operation = one round: 1,000 tasks of a task group call `SingleFlight.run` for the same
/// key; the run waits until all of them have joined, so it is exactly one run; the round ends
/// when every caller has its result.
func singleFlightRounds(_ iterations: Int) async throws {
    let flight = SingleFlight<Unkeyed, Int, Never>()
    let runs = SharedLock(0)
    for round in 0..<iterations {
        let input = opaque(round)
        let total = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<singleFlightCallers {
                group.addTask {
                    try await flight.run {
                        runs.withLock { $0 += 1 }
                        while flight.waiterCount(key: .shared) < singleFlightCallers { await Task.yield() }
                        return input
                    }
                }
            }
            var total = 0
            for try await value in group { total &+= value }
            return total
        }
        try checkRound(runs: runs.withLock { runs in defer { runs = 0 }; return runs }, total: total, input: input)
    }
}

/// The peer: the coalescer people write by hand, an actor holding the task in flight.
func actorCoalescerRounds(_ iterations: Int) async throws {
    let coalescer = TaskCoalescer()
    let runs = SharedLock(0)
    for round in 0..<iterations {
        let input = opaque(round)
        let total = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<singleFlightCallers {
                group.addTask {
                    await coalescer.run {
                        runs.withLock { $0 += 1 }
                        while await coalescer.waiting < singleFlightCallers { await Task.yield() }
                        return input
                    }
                }
            }
            var total = 0
            for try await value in group { total &+= value }
            return total
        }
        try checkRound(runs: runs.withLock { runs in defer { runs = 0 }; return runs }, total: total, input: input)
    }
}

func checkRound(runs: Int, total: Int, input: Int) throws {
    let expected = input &* singleFlightCallers
    if runs != 1 || total != expected { throw CoalescingFailed(runs: runs, total: total, expected: expected) }
}

/// The usual hand-written token-refresh coalescer: the first caller stores a `Task`, later
/// callers await it, and the task clears itself when done. It counts its waiters (what the
/// round's gate needs; `SingleFlight` counts them anyway). It has no per-waiter cancellation.
actor TaskCoalescer {
    private var task: Task<Int, Never>?
    private(set) var waiting = 0

    func run(_ operation: @escaping @Sendable () async -> Int) async -> Int {
        waiting += 1
        if let task { return await task.value }
        let task = Task {
            let value = await operation()
            self.task = nil
            waiting = 0
            return value
        }
        self.task = task
        return await task.value
    }
}
