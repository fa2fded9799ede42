@_spi(AsyncBridgeInternals) import AsyncBridge
import Testing

extension Chaos {
    /// `share(replay:scope:)` churn: subscribers join and leave from many threads while the
    /// upstream sends from a thread of its own, so connections open and close all the time
    /// (contracts 2 and 3 under load).
    @Suite("Chaos: share", .timeLimit(.minutes(2)))
    struct ShareChaosTests {
        static let rounds = 12
        static let values = 200
        static let churners = 4
        static let subscriptionsPerChurner = 40

        @Test func subscribersJoiningAndLeavingOnManyThreadsCancelEachConnectionOnce() async {
            var figures = ChaosFigures(suite: "share")
            figures.threads = 1 + Self.churners
            var connections = 0
            for round in 0..<Self.rounds {
                let live = ChaosLiveObjects()
                let outcome = await live.track { await Self.round(round, live: live) }
                connections += outcome.connections
                await figures.record("share round \(round)", events: outcome.events, cancels: outcome.cancels, live: live)
            }
            figures.notes.append("\(connections) upstream connections")
            figures.print()
        }

        struct Outcome {
            var events = 0
            var cancels = 0
            var connections = 0
        }

        static func round(_ round: Int, live: ChaosLiveObjects) async -> Outcome {
            var random = ChaosRandom(4, UInt64(round))
            let replay = Int.random(in: 0...2, using: &random)
            let scope: ShareScope = random.chance(50) ? .forever : .whileConnected
            // Half the rounds keep one subscriber from start to end: one connection, every value.
            let keepsOne = random.chance(50)
            let context = "round \(round), share(replay: \(replay), scope: \(scope))\(keepsOne ? ", one steady subscriber" : ""), seed \(chaosSeedText)"

            let source = ChaosHotSource<Int, TestError>()
            let shared = source.flow.share(replay: replay, scope: scope)
            let steady = GrammarProbe<Int, TestError>("steady")
            if keepsOne { steady.subscribe(to: shared) }
            let probes = SharedLock<[GrammarProbe<Int, TestError>]>([])
            let cancels = SharedLock(0)

            let threadsEnded = await onThreads(1 + churners, tracking: live) { thread in
                var random = ChaosRandom(4, UInt64(round), UInt64(thread))
                if thread == 0 {
                    for value in 0..<values { source.send(value) }
                    return
                }
                for _ in 0..<subscriptionsPerChurner {
                    let cancelItselfAfter = random.chance(30) ? Int.random(in: 1...4, using: &random) : nil
                    let probe = GrammarProbe<Int, TestError>("churner") { probe, count in
                        if count == cancelItselfAfter, probe.cancelFromHandler() { cancels.withLock { $0 += 1 } }
                    }
                    let others = probes.withLock { probes -> [GrammarProbe<Int, TestError>] in
                        probes.append(probe)
                        return probes
                    }
                    probe.subscribe(to: shared)
                    // Without a steady subscriber, most leave at once: the connection closes and
                    // reopens all the time.
                    switch Int.random(in: keepsOne ? 0..<10 : 0..<6, using: &random) {
                    case 0..<4:
                        probe.cancel()
                        cancels.withLock { $0 += 1 }
                    case 4..<8:
                        others.randomElement(using: &random)?.cancel()
                        cancels.withLock { $0 += 1 }
                    default:
                        break
                    }
                }
            }
            #expect(threadsEnded, "the threads ended within 10 s (\(context))")
            let finished = source.finishAll()

            var outcome = Outcome(cancels: cancels.withLock { $0 })
            if keepsOne {
                #expect(steady.violations == [], "(\(context))")
                #expect(steady.values == Array(0..<values), "the steady subscriber got every value, in order (\(context))")
                #expect(steady.completions == [.finished], "(\(context))")
                #expect(source.runs == 1, "one connection while a subscriber stayed (\(context))")
            }
            outcome.events += steady.values.count + steady.completions.count
            steady.release()
            for probe in probes.withLock({ $0 }) {
                #expect(probe.violations == [], "\(probe.name) (\(context))")
                let values = probe.values
                #expect(values == Array((values.first ?? 0)..<(values.first ?? 0) + values.count) || replay > 0,
                        "no gap while subscribed (\(context)): \(values)")
                #expect(probe.completions == (probe.isCancelled ? [] : [.finished]), "\(probe.name) (\(context))")
                outcome.events += values.count + probe.completions.count
                probe.release()
            }
            probes.withLock { $0 = [] }
            // Every connection ended exactly once: cancelled by the last subscriber leaving, or
            // finished by the upstream.
            for (run, cancels) in source.cancelsPerRun.enumerated() {
                let ends = cancels + (finished.contains(run) ? 1 : 0)
                #expect(ends == 1, "connection \(run) was cancelled \(cancels) times and \(finished.contains(run) ? "" : "not ")finished (\(context))")
            }
            outcome.connections = source.runs
            return outcome
        }
    }
}
