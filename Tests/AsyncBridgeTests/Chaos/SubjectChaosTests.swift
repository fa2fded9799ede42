@_spi(AsyncBridgeInternals) import AsyncBridge
import Testing

extension Chaos {
    /// Many threads send to a subject while others subscribe, cancel themselves from their
    /// handlers and cancel each other (contract 3 under load).
    @Suite("Chaos: subjects", .timeLimit(.minutes(2)))
    struct SubjectChaosTests {
        static let rounds = 10
        static let senders = 3
        static let valuesPerSender = 100
        static let churners = 5
        static let subscriptionsPerChurner = 30

        @Test func sendersSubscribersAndCancellersOnManyThreadsKeepTheGrammarAndLoseNothing() async {
            var figures = ChaosFigures(suite: "subjects")
            figures.threads = Self.senders + Self.churners
            var afterSecondCancel = 0
            for round in 0..<Self.rounds {
                let live = ChaosLiveObjects()
                let outcome = await live.track { await Self.round(round, live: live) }
                afterSecondCancel += outcome.afterSecondCancel
                await figures.record("subjects round \(round)", events: outcome.events, cancels: outcome.cancels, live: live)
            }
            figures.notes.append("\(afterSecondCancel) events after a second, concurrent cancel() returned (at most the one in flight each)")
            figures.print()
        }

        struct Outcome {
            var events = 0
            var cancels = 0
            var afterSecondCancel = 0
        }

        static func round(_ round: Int, live: ChaosLiveObjects) async -> Outcome {
            var random = ChaosRandom(1, UInt64(round))
            let replay = random.chance(50) ? Int.random(in: 1...3, using: &random) : 0
            let subject: any FlowSubject<Int, TestError> = replay > 0 ? ReplayingSubject(bufferSize: replay) : LiveSubject()
            let context = "round \(round), \(replay > 0 ? "ReplayingSubject(bufferSize: \(replay))" : "LiveSubject"), seed \(chaosSeedText)"

            // Two subscribers that stay from before the first send to the finish: they get everything.
            let steady = [GrammarProbe<Int, TestError>("steady"), GrammarProbe<Int, TestError>("steady, through map and filter")]
            steady[0].subscribe(to: subject.flow)
            steady[1].subscribe(to: subject.flow.map { $0 }.filter { _ in true })

            let probes = SharedLock<[GrammarProbe<Int, TestError>]>([])
            let cancels = SharedLock(0)
            let threadsEnded = await onThreads(senders + churners, tracking: live) { thread in
                var random = ChaosRandom(1, UInt64(round), UInt64(thread))
                if thread < senders {
                    for sequence in 0..<valuesPerSender { subject.send(thread * 1_000_000 + sequence) }
                    return
                }
                for _ in 0..<subscriptionsPerChurner {
                    let cancelItselfAfter = random.chance(30) ? Int.random(in: 1...5, using: &random) : nil
                    let probe = GrammarProbe<Int, TestError>("churner") { probe, count in
                        if count == cancelItselfAfter, probe.cancelFromHandler() { cancels.withLock { $0 += 1 } }
                    }
                    let others = probes.withLock { probes -> [GrammarProbe<Int, TestError>] in
                        probes.append(probe)
                        return probes
                    }
                    probe.subscribe(to: random.chance(50) ? subject.flow : subject.flow.map { $0 })
                    switch Int.random(in: 0..<4, using: &random) {
                    case 0:
                        probe.cancel()
                        cancels.withLock { $0 += 1 }
                    case 1:
                        others.randomElement(using: &random)?.cancel()
                        cancels.withLock { $0 += 1 }
                    default:
                        break  // stays until the finish, or until another thread cancels it
                    }
                }
            }
            #expect(threadsEnded, "the threads ended within 10 s (\(context))")
            subject.finish()

            var outcome = Outcome(cancels: cancels.withLock { $0 })
            let everything = Array(0..<senders).flatMap { sender in (0..<valuesPerSender).map { sender * 1_000_000 + $0 } }
            for probe in steady {
                #expect(probe.violations == [], "\(probe.name) (\(context))")
                #expect(probe.values.sorted() == everything, "\(probe.name) got every value sent (\(context))")
                #expect(probe.completions == [.finished], "\(probe.name) (\(context))")
                outcome.events += probe.values.count + probe.completions.count
                probe.release()
            }
            for probe in probes.withLock({ $0 }) {
                #expect(probe.violations == [], "\(probe.name) (\(context))")
                // Every sender's values arrive in order, with no gap while subscribed.
                let bySender = Dictionary(grouping: probe.values) { $0 / 1_000_000 }
                for (sender, values) in bySender {
                    let sequence = values.map { $0 % 1_000_000 }
                    #expect(sequence == Array(sequence[0]..<sequence[0] + sequence.count), "sender \(sender)'s values, in order, none lost (\(context))")
                }
                // Cancelled before the finish was sent: no completion; else exactly one.
                #expect(probe.completions == (probe.isCancelled ? [] : [.finished]), "\(probe.name) (\(context))")
                outcome.events += probe.values.count + probe.completions.count
                outcome.afterSecondCancel += probe.eventsAfterSecondCancel
                probe.release()
            }
            probes.withLock { $0 = [] }
            return outcome
        }
    }
}
