@_spi(AsyncBridgeInternals) import AsyncBridge
import Dispatch
import Testing

extension Chaos {
    /// flatMap, flatMapLatest and flatMapFirst with synchronous, asynchronous, failing and
    /// never-ending inners, fed from several threads, their subscribers cancelled at random
    /// (contracts 2, 3 and 6 under load).
    @Suite("Chaos: flatMap family", .timeLimit(.minutes(2)))
    struct FlatMapChaosTests {
        static let rounds = 24
        static let senders = 2
        static let valuesPerSender = 60
        static let subscribers = 4

        enum Operator: CustomStringConvertible {
            case merge(maxConcurrent: Int)
            case latest
            case first

            var description: String {
                switch self {
                case .merge(let maxConcurrent): maxConcurrent == .max ? "flatMap" : "flatMap(maxConcurrent: \(maxConcurrent))"
                case .latest: "flatMapLatest"
                case .first: "flatMapFirst"
                }
            }
        }

        @Test func innersOfEveryKindCancelledAtRandomAreCancelledOnceAndKeepTheGrammar() async {
            var figures = ChaosFigures(suite: "flatMap family")
            figures.threads = Self.senders + 1
            var innerRuns = 0
            for round in 0..<Self.rounds {
                let live = ChaosLiveObjects()
                let outcome = await live.track { await Self.round(round, live: live) }
                innerRuns += outcome.innerRuns
                await figures.record("flatMap round \(round)", events: outcome.events, cancels: outcome.cancels, live: live)
            }
            figures.notes.append("\(innerRuns) inner runs")
            figures.print()
        }

        struct Outcome {
            var events = 0
            var cancels = 0
            var innerRuns = 0
        }

        static func round(_ round: Int, live: ChaosLiveObjects) async -> Outcome {
            var random = ChaosRandom(2, UInt64(round))
            let op: Operator = switch Int.random(in: 0..<4, using: &random) {
            case 0: .merge(maxConcurrent: .max)
            case 1: .merge(maxConcurrent: Int.random(in: 1...3, using: &random))
            case 2: .latest
            default: .first
            }
            // Every third round is lossless: only inners that end by themselves, no cancellation
            // of the steady subscriber, so a merging flatMap must deliver every inner value.
            let lossless = round % 3 == 0
            let failAt = !lossless && random.chance(40) ? Int.random(in: 0..<valuesPerSender, using: &random) : nil
            let context = "round \(round), \(op), \(lossless ? "lossless" : "failing at \(failAt.map(String.init) ?? "none")"), seed \(chaosSeedText)"

            let inners = ChaosInners(round: round, lossless: lossless, failAt: failAt)
            let outer = LiveSubject<Int, TestError>()
            let flow: Flow<Int, TestError> = switch op {
            case .merge(let maxConcurrent): outer.flow.flatMap(maxConcurrent: maxConcurrent) { inners.flow(for: $0) }
            case .latest: outer.flow.flatMapLatest { inners.flow(for: $0) }
            case .first: outer.flow.flatMapFirst { inners.flow(for: $0) }
            }

            let steady = GrammarProbe<Int, TestError>("steady")
            steady.subscribe(to: flow)
            var probes = [steady]
            for index in 1..<subscribers {
                let cancelItselfAfter = random.chance(50) ? Int.random(in: 1...20, using: &random) : nil
                let probe = GrammarProbe<Int, TestError>("subscriber \(index)") { probe, count in
                    if count == cancelItselfAfter { probe.cancelFromHandler() }
                }
                probe.subscribe(to: flow)
                probes.append(probe)
            }
            let cancelOrder = probes.dropFirst().shuffled(using: &random)
            let cancelEvery = Int.random(in: 5...40, using: &random)

            let threadsEnded = await onThreads(senders + 1, tracking: live) { thread in
                if thread < senders {
                    for sequence in 0..<valuesPerSender { outer.send(thread * 1_000 + sequence) }
                } else {
                    // The canceller: cancels the other subscribers one by one while values flow.
                    for (index, probe) in cancelOrder.enumerated() {
                        for _ in 0..<cancelEvery * (index + 1) { outer.send(-1) }  // -1: an inner with no values
                        probe.cancel()
                    }
                }
            }
            #expect(threadsEnded, "the threads ended within 10 s (\(context))")
            outer.finish()
            #expect(await inners.asynchronousWorkEnded(), "asynchronous inners ended within 10 s (\(context))")

            var outcome = Outcome()
            if lossless, case .merge = op {
                // Two values per outer value (the canceller's -1s map to empty inners).
                #expect(steady.values.count == 2 * senders * valuesPerSender, "every inner value arrived (\(context))")
                #expect(steady.completions == [.finished], "(\(context))")
            }
            for probe in probes {
                if !probe.isCancelled, probe.completions.isEmpty {
                    probe.cancel()  // a never-ending inner is still running, or the outer could not finish
                }
                outcome.events += probe.values.count + probe.completions.count
            }
            outcome.cancels = probes.filter(\.isCancelled).count
            #expect(await inners.asynchronousWorkEnded(), "asynchronous inners ended within 10 s (\(context))")
            for probe in probes {
                #expect(probe.violations == [], "\(probe.name) (\(context))")
                #expect(probe.completions.count <= 1, "\(probe.name) (\(context))")
                if failAt == nil, !probe.isCancelled {
                    #expect(probe.completions == [.finished], "\(probe.name) (\(context))")
                }
                probe.release()
            }
            // Each inner run: its cancel action ran at most once; a never-ending one exactly once,
            // now that every subscription has ended.
            for run in inners.runs {
                #expect(run.cancels <= 1, "an inner \(run.kind) run was cancelled \(run.cancels) times (\(context))")
                if run.kind == .never {
                    #expect(run.cancels == 1, "a never-ending inner was cancelled \(run.cancels) times (\(context))")
                }
            }
            outcome.innerRuns = inners.runs.count
            return outcome
        }
    }
}

/// The inner flows of a flatMap chaos round: the kind of each value's inner comes from the
/// seed. `-1` maps to an inner that finishes at once.
final class ChaosInners: Sendable {
    enum Kind: CustomStringConvertible {
        case synchronous, asynchronous, failing, never, empty
        var description: String {
            switch self {
            case .synchronous: "synchronous"
            case .asynchronous: "asynchronous"
            case .failing: "failing"
            case .never: "never-ending"
            case .empty: "empty"
            }
        }
    }

    struct Run {
        var kind: Kind
        var cancels = 0
    }

    private struct State {
        var runs: [Run] = []
    }

    private let state = SharedLock(State())
    private let work = DispatchGroup()
    let round: Int
    let lossless: Bool
    let failAt: Int?

    init(round: Int, lossless: Bool, failAt: Int?) {
        self.round = round
        self.lossless = lossless
        self.failAt = failAt
    }

    func kind(of value: Int) -> Kind {
        if value < 0 { return .empty }
        if value % 1_000 == failAt { return .failing }
        var random = ChaosRandom(3, UInt64(round), UInt64(value))
        let roll = Int.random(in: 0..<100, using: &random)
        if lossless { return roll < 50 ? .synchronous : .asynchronous }
        return roll < 40 ? .synchronous : roll < 75 ? .asynchronous : .never
    }

    func flow(for value: Int) -> Flow<Int, TestError> {
        let kind = kind(of: value)
        return Flow.create { [state, work] emitter in
            let run = state.withLock { state -> Int in
                state.runs.append(Run(kind: kind))
                return state.runs.count - 1
            }
            switch kind {
            case .synchronous:
                emitter.send(value)
                emitter.send(value)
                emitter.finish()
            case .asynchronous:
                work.enter()
                DispatchQueue.global().async {
                    emitter.send(value)
                    emitter.send(value)
                    emitter.finish()
                    work.leave()
                }
            case .failing:
                emitter.fail(TestError(code: value))
            case .never:
                break
            case .empty:
                emitter.finish()
            }
            emitter.onCancel { state.withLock { $0.runs[run].cancels += 1 } }
        }
    }

    /// Waits (up to 10 s, off the cooperative pool) for the asynchronous inners' threads.
    func asynchronousWorkEnded() async -> Bool {
        let ended = DispatchSemaphore(value: 0)
        work.notify(queue: .global()) { ended.signal() }
        return await waitOffThePool(ended)
    }

    var runs: [Run] { state.withLock { $0.runs } }
}
