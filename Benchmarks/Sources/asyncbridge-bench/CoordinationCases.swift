@_spi(AsyncBridgeInternals) import AsyncBridge

/// The coordination spoke's cases: `single-flight-1000`.
let coordinationCases: [BenchmarkCase] = [
    BenchmarkCase(
        id: "single-flight-1000",
        peer: "lock holding a Task?",
        ratio: .speedup(atLeast: nil),
        allocations: .notCounted,
        ours: singleFlightRounds,
        peerBody: taskCoalescerRounds
    ),
]

// MARK: single-flight-1000

/// Callers per round.
let singleFlightCallers = 1_000

/// A round whose callers did not all get its value: the case fails loudly.
struct CoalescingFailed: Error, CustomStringConvertible {
    let total: Int
    let expected: Int
    var description: String {
        "single-flight-1000: the callers' values add up to \(total) (expected \(expected))"
    }
}

/// What both sides share: the joining rule and the check of each round.
///
/// The rule: each caller counts its arrival just before it calls (ours: `SingleFlight.run`;
/// the peer: `TaskCoalescer.run`), and the operation runs until all 1,000 have arrived,
/// reading the count under a lock between `Task.yield()`s. A caller joins in the first
/// synchronous steps of the call, right after counting, so a round is one run; a caller
/// delayed between counting and joining past the operation's end would start a second run
/// (both sides behave so), which the round counts and the case reports.
final class Rounds: Sendable {
    private struct State {
        var arrivals = 0
        var runs = 0
        var extraRuns = 0
    }

    private let state = SharedLock(State())

    /// A caller is about to call.
    func arrive() { state.withLock { $0.arrivals += 1 } }

    /// The operation of a round: waits until every caller has arrived, then returns `input`.
    func operation(_ input: Int) async -> Int {
        state.withLock { $0.runs += 1 }
        while state.withLock({ $0.arrivals }) < singleFlightCallers { await Task.yield() }
        return input
    }

    /// Ends a round: every caller must have the round's value.
    func end(total: Int, input: Int) throws {
        let runs = state.withLock { state in
            defer { (state.arrivals, state.runs) = (0, 0) }
            return state.runs
        }
        let expected = input &* singleFlightCallers
        if total != expected { throw CoalescingFailed(total: total, expected: expected) }
        if runs > 1 { state.withLock { $0.extraRuns += runs - 1 } }
    }

    /// Reports runs beyond one per round, if any.
    func report(_ side: String) {
        let extra = state.withLock { $0.extraRuns }
        if extra > 0 { printError("single-flight-1000 (\(side)): \(extra) runs beyond one per round (late joiners)") }
    }
}

/// One operation = one round: 1,000 tasks of a task group call `SingleFlight.run` for the same
/// key; the round ends when every caller has its result.
func singleFlightRounds(_ iterations: Int) async throws {
    let flight = SingleFlight<Unkeyed, Int, Never>()
    let rounds = Rounds()
    for round in 0..<iterations {
        let input = opaque(round)
        let total = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<singleFlightCallers {
                group.addTask {
                    rounds.arrive()
                    return try await flight.run { await rounds.operation(input) }
                }
            }
            var total = 0
            for try await value in group { total &+= value }
            return total
        }
        try rounds.end(total: total, input: input)
    }
    rounds.report("ours")
}

/// The peer: the same rounds through the coalescer people write by hand.
func taskCoalescerRounds(_ iterations: Int) async throws {
    let coalescer = TaskCoalescer()
    let rounds = Rounds()
    for round in 0..<iterations {
        let input = opaque(round)
        let total = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<singleFlightCallers {
                group.addTask {
                    rounds.arrive()
                    return await coalescer.run { await rounds.operation(input) }
                }
            }
            var total = 0
            for try await value in group { total &+= value }
            return total
        }
        try rounds.end(total: total, input: input)
    }
    rounds.report("peer")
}

/// The usual hand-written coalescer (a token refresh's): a lock holding the `Task` in flight;
/// the first caller stores a new one, later callers await it, and the task clears itself
/// when done. It has no per-caller cancellation (ours lets a cancelled caller leave).
final class TaskCoalescer: Sendable {
    private let inFlight = SharedLock<Task<Int, Never>?>(nil)

    func run(_ operation: @escaping @Sendable () async -> Int) async -> Int {
        let task = inFlight.withLock { current -> Task<Int, Never> in
            if let task = current { return task }
            let task = Task { [inFlight = self.inFlight] in
                let value = await operation()
                inFlight.withLock { $0 = nil }
                return value
            }
            current = task
            return task
        }
        return await task.value
    }
}
