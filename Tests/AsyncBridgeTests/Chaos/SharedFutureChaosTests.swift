@_spi(AsyncBridgeInternals) import AsyncBridge
import Dispatch
import Testing

extension Chaos {
    /// A `SharedFuture`'s consumers subscribe and cancel from many threads while its operation
    /// completes: cancellation races completion (contracts 1 and 2 under load).
    @Suite("Chaos: SharedFuture", .timeLimit(.minutes(2)))
    struct FutureChaosTests {
        static let rounds = 60
        static let consumers = 4
        static let subscriptionsPerConsumer = 25

        @Test func cancellationRacingCompletionRunsEachCancelActionOnceAndCallsEachConsumerOnce() async {
            var figures = ChaosFigures(suite: "SharedFuture")
            figures.threads = Self.consumers + 1
            var runs = 0
            for round in 0..<Self.rounds {
                let live = ChaosLiveObjects()
                let outcome = await live.track { await Self.round(round, live: live) }
                runs += outcome.runs
                await figures.record("SharedFuture round \(round)", events: outcome.events, cancels: outcome.cancels, live: live)
            }
            figures.notes.append("\(runs) runs of the operation")
            figures.print()
        }

        struct Outcome {
            var events = 0
            var cancels = 0
            var runs = 0
        }

        /// The runs of a round's operation: each keeps its completion block until the completer
        /// calls it, and counts its cancel action.
        final class Runs: Sendable {
            struct Run {
                var completion: (@Sendable (Result<Int, Never>) -> Void)?
                var completed = false
                var cancels = 0
            }

            let state = SharedLock([Run]())

            /// Set by ``finishAll()``: later runs complete as they start.
            let finishing = SharedLock(false)

            func start(_ completion: @escaping @Sendable (Result<Int, Never>) -> Void) -> Int {
                let (run, now) = state.withLock { runs -> (Int, Bool) in
                    let now = finishing.withLock { $0 }
                    runs.append(Run(completion: now ? nil : completion, completed: now))
                    return (runs.count - 1, now)
                }
                if now { completion(.success(run)) }  // synchronously, inside the operation's start
                return run
            }

            /// Completes the run pending now, and every later run as it starts.
            func finishAll() {
                state.withLock { _ in finishing.withLock { $0 = true } }
                completeLatest()
            }

            func cancel(_ run: Int) {
                let released = state.withLock { runs -> (@Sendable (Result<Int, Never>) -> Void)? in
                    runs[run].cancels += 1
                    defer { runs[run].completion = nil }
                    return runs[run].completion
                }
                _ = released  // released outside the lock
            }

            /// Completes the latest run that has neither completed nor been cancelled; its value is
            /// its number.
            func completeLatest() {
                let pending = state.withLock { runs -> (Int, @Sendable (Result<Int, Never>) -> Void)? in
                    guard let run = runs.indices.last, let completion = runs[run].completion else { return nil }
                    runs[run].completed = true
                    runs[run].completion = nil
                    return (run, completion)
                }
                guard let (run, completion) = pending else { return }
                completion(.success(run))
            }

            var all: [Run] { state.withLock { $0 } }
        }

        static func round(_ round: Int, live: ChaosLiveObjects) async -> Outcome {
            var random = ChaosRandom(5, UInt64(round))
            let context = "round \(round), seed \(chaosSeedText)"
            let runs = Runs()
            let future = SharedFuture<Int, Never> { completion, onCancel in
                let run = runs.start(completion)
                onCancel { runs.cancel(run) }
            }
            let subscriptions = consumers * subscriptionsPerConsumer
            // Per subscription: the results its completion block got, and whether it was cancelled.
            let results = SharedLock([[Result<Int, any Error>]](repeating: [], count: subscriptions))
            let cancelled = SharedLock([Bool](repeating: false, count: subscriptions))
            let tokens = SharedLock([Int: CancellationToken]())
            let completeAt = Int.random(in: 0..<subscriptions, using: &random)

            let threadsEnded = await onThreads(consumers + 1, tracking: live) { thread in
                var random = ChaosRandom(5, UInt64(round), UInt64(thread))
                if thread == consumers {
                    // The completer, which also cancels subscriptions of the others.
                    for step in 0..<subscriptions {
                        if step == completeAt { runs.completeLatest() }
                        let victim = tokens.withLock { tokens -> (Int, CancellationToken)? in
                            guard let key = tokens.keys.randomElement(using: &random) else { return nil }
                            return (key, tokens.removeValue(forKey: key)!)
                        }
                        if let (id, token) = victim {
                            token.cancel()
                            cancelled.withLock { $0[id] = true }
                        }
                    }
                    return
                }
                for index in 0..<subscriptionsPerConsumer {
                    let id = thread * subscriptionsPerConsumer + index
                    let token = future.subscribe { result in results.withLock { $0[id].append(result) } }
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0:
                        token.cancel()
                        cancelled.withLock { $0[id] = true }
                    case 1:
                        tokens.withLock { $0[id] = token }  // for the completer to cancel
                    default:
                        break
                    }
                }
            }
            #expect(threadsEnded, "the threads ended within 10 s (\(context))")
            runs.completeLatest()  // whoever still waits gets a value

            var outcome = Outcome()
            let all = results.withLock { $0 }
            let wasCancelled = cancelled.withLock { $0 }
            var delivered = Set<Int>()
            for (id, results) in all.enumerated() {
                #expect(results.count == 1, "subscription \(id)'s completion block was called \(results.count) times (\(context))")
                guard let result = results.first else { continue }
                switch result {
                case .success(let run):
                    delivered.insert(run)
                case .failure(let error):
                    #expect(error is CancellationError, "(\(context))")
                    #expect(wasCancelled[id], "subscription \(id) got CancellationError without being cancelled (\(context))")
                }
                outcome.events += results.count
            }
            outcome.cancels = wasCancelled.filter { $0 }.count
            #expect(delivered.count <= 1, "one run's value for every consumer (memoised): \(delivered) (\(context))")
            // Each run ended once: its cancel action ran, or its value was delivered, not both.
            for (number, run) in runs.all.enumerated() {
                #expect(run.cancels <= 1, "run \(number)'s cancel action ran \(run.cancels) times (\(context))")
                #expect((run.cancels == 1) != delivered.contains(number),
                        "run \(number): cancel action ran \(run.cancels) times, value \(delivered.contains(number) ? "" : "not ")delivered (\(context))")
            }
            outcome.runs = runs.all.count
            tokens.withLock { $0 = [:] }
            return outcome
        }

        @Test func awaitingTasksCancelledWhileTheOperationCompletesGetTheValueOrCancellation() async {
            var figures = ChaosFigures(suite: "SharedFuture, awaiting tasks")
            figures.threads = 1
            var runs = 0
            for round in 0..<Self.rounds {
                let live = ChaosLiveObjects()
                let outcome = await live.track { await Self.tasksRound(round, live: live) }
                runs += outcome.runs
                await figures.record("SharedFuture tasks round \(round)", events: outcome.events, cancels: outcome.cancels, live: live)
            }
            figures.notes.append("\(Self.awaitingTasks) awaiting tasks a round, \(runs) runs of the operation")
            figures.print()
        }

        static let awaitingTasks = 16

        /// Tasks await `result`; the test cancels some of them while a thread of its own completes
        /// the operation.
        static func tasksRound(_ round: Int, live: ChaosLiveObjects) async -> Outcome {
            var random = ChaosRandom(9, UInt64(round))
            let context = "tasks round \(round), seed \(chaosSeedText)"
            let runs = Runs()
            let future = SharedFuture<Int, Never> { completion, onCancel in
                let run = runs.start(completion)
                onCancel { runs.cancel(run) }
            }
            let cancel = (0..<awaitingTasks).map { _ in random.chance(50) }
            let completeAfter = Int.random(in: 0...awaitingTasks, using: &random)
            let tasks = (0..<awaitingTasks).map { _ in
                Task { () -> Int? in try? await future.result.get() }
            }
            let completerEnded = await onThreads(1, tracking: live) { _ in
                for (index, task) in tasks.enumerated() {
                    if index == completeAfter { runs.completeLatest() }
                    if cancel[index] { task.cancel() }
                }
            }
            #expect(completerEnded, "the completer ended within 10 s (\(context))")
            // Whoever still waits gets a value, also a task that starts a run only now.
            runs.finishAll()
            let allEnded = DispatchSemaphore(value: 0)
            Task {
                for task in tasks { _ = await task.value }
                allEnded.signal()
            }
            guard await waitOffThePool(allEnded, seconds: poolDeadlockSeconds) else {
                Issue.record("the awaiting tasks did not all end within \(poolDeadlockSeconds) s (\(context))")
                return Outcome()
            }
            var outcome = Outcome()
            var delivered = Set<Int>()
            for (index, task) in tasks.enumerated() {
                switch await task.value {
                case let value?: delivered.insert(value)
                case nil: #expect(cancel[index], "task \(index) got CancellationError without being cancelled (\(context))")
                }
                outcome.events += 1
            }
            outcome.cancels = cancel.filter { $0 }.count
            #expect(delivered.count <= 1, "one run's value for every task (memoised): \(delivered) (\(context))")
            for (number, run) in runs.all.enumerated() {
                #expect(run.cancels <= 1, "run \(number)'s cancel action ran \(run.cancels) times (\(context))")
                #expect((run.cancels == 1) != delivered.contains(number),
                        "run \(number): cancel action ran \(run.cancels) times, value \(delivered.contains(number) ? "" : "not ")delivered (\(context))")
            }
            outcome.runs = runs.all.count
            return outcome
        }
    }
}
