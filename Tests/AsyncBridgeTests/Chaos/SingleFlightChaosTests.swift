@_spi(AsyncBridgeInternals) import AsyncBridge
import Testing

extension Chaos {
    /// Many tasks call a `SingleFlight` for a few keys while some of them are cancelled at random
    /// (contract 2 under load): every caller that is not cancelled gets its key's value, a
    /// cancelled one gets a value or `CancellationError`, and every flight leaves the table.
    @Suite("Chaos: SingleFlight", .timeLimit(.minutes(2)))
    struct SingleFlightChaosTests {
        static let rounds = 40
        static let callers = 24
        static let keys = 3

        @Test func callersCancelledAtRandomGetTheirKeysValueOrCancellationAndNoFlightStays() async {
            var figures = ChaosFigures(suite: "SingleFlight")
            var operations = 0
            for round in 0..<Self.rounds {
                // Made outside the tracked scope, so that its table does not count; every flight
                // (a `SharedFuture` in the table) does.
                var random = ChaosRandom(8, UInt64(round))
                let flight = SingleFlight<Int, Int, Never>(policy: random.chance(50) ? .cancelWhenUnused : .runToCompletion)
                let live = ChaosLiveObjects()
                let outcome = await live.track { await Self.round(round, flight: flight, random: &random) }
                operations += outcome.operations
                await figures.record("SingleFlight round \(round)", events: outcome.events, cancels: outcome.cancels, live: live)
                #expect(flight.flightCount == 0, "no flight left in the table (round \(round), seed \(chaosSeedText))")
            }
            figures.notes.append("\(Self.callers) calling tasks a round, \(operations) operations run")
            figures.print()
        }

        struct Outcome {
            var events = 0
            var cancels = 0
            var operations = 0
        }

        static func round(_ round: Int, flight: SingleFlight<Int, Int, Never>, random: inout ChaosRandom) async -> Outcome {
            let policy = flight.policy
            let context = "round \(round), \(policy), seed \(chaosSeedText)"
            let operations = SharedLock((started: 0, sawCancellation: 0))
            let plan = (0..<callers).map { _ in
                (key: Int.random(in: 0..<keys, using: &random),
                 yields: Int.random(in: 0...20, using: &random),
                 typed: random.chance(50),
                 cancel: random.chance(40))
            }

            let tasks = plan.map { call in
                Task { () -> Result<Int, CancellationError> in
                    let operation: @Sendable () async -> Int = {
                        let number = operations.withLock { state -> Int in
                            state.started += 1
                            return state.started
                        }
                        for _ in 0..<call.yields { await Task.yield() }
                        if Task.isCancelled { operations.withLock { $0.sawCancellation += 1 } }
                        return call.key * 1_000 + number
                    }
                    do {
                        if call.typed {
                            let result: Result<Int, Never> = try await flight.result(key: call.key, operation: operation)
                            return .success(result.get())
                        }
                        return .success(try await flight.run(key: call.key, operation: operation))
                    } catch {
                        return .failure(error as? CancellationError ?? CancellationError())
                    }
                }
            }
            for (task, call) in zip(tasks, plan) where call.cancel { task.cancel() }

            var outcome = Outcome()
            for (index, (task, call)) in zip(tasks, plan).enumerated() {
                switch await task.value {
                case .success(let value):
                    #expect(value / 1_000 == call.key, "caller \(index) got another key's value \(value) (\(context))")
                case .failure:
                    #expect(call.cancel, "caller \(index) got CancellationError without being cancelled (\(context))")
                }
                outcome.events += 1
            }
            if policy == .runToCompletion {
                // A flight that runs to completion outlives its callers when all of them were
                // cancelled, and leaves the table when its run ends. A caller that is not
                // cancelled joins it (or starts a run of its own) and returns once it has left
                // (a run leaves before it delivers), so the table is checked without a race.
                for key in 0..<keys { _ = try? await flight.run(key: key) { key * 1_000 } }
            }
            let counts = operations.withLock { $0 }
            if policy == .runToCompletion {
                #expect(counts.sawCancellation == 0, "runToCompletion cancelled an operation (\(context))")
            }
            outcome.cancels = plan.filter(\.cancel).count
            outcome.operations = counts.started
            return outcome
        }
    }
}
