@_spi(AsyncBridgeInternals) @testable import AsyncBridge
import AsyncBridgeTesting
import Testing

/// What an owner that keeps a future to one run uses (a single-flight's flights): a future made
/// with its first consumer arrived, joined only while its run is in progress, and its consumers
/// counted.
@Suite("SharedFuture: one run for an owner", .timeLimit(.minutes(1)))
struct SharedFutureOneRunTests {
    /// An operation that counts its starts and cancellations and keeps its completer.
    final class Operation: Sendable {
        private let state = SharedLock((starts: 0, cancels: 0, completer: FutureCompleter<Int, Never>?.none))

        var starts: Int { state.withLock { $0.starts } }
        var cancels: Int { state.withLock { $0.cancels } }

        var work: @Sendable (FutureCompleter<Int, Never>) -> CancelAction? {
            { [state] completer in
                state.withLock { state in
                    state.starts += 1
                    state.completer = completer
                }
                return { state.withLock { $0.cancels += 1 } }
            }
        }

        func complete(_ value: Int) {
            let completer = state.withLock { state in
                defer { state.completer = nil }
                return state.completer
            }
            completer?.resolve(.success(value))
        }
    }

    @Test func anUnstartedRunCountsItsFirstConsumerSoOthersJoinItBeforeItStarts() throws {
        let operation = Operation()
        let run = SharedFuture<Int, Never>.unstartedRun(work: operation.work)
        #expect(run.future.consumerCount == 1)
        guard case .waiting(let id, let generation)? = run.future.joinRunInProgress() else {
            Issue.record("a consumer did not join the run before it started")
            return
        }
        #expect(operation.starts == 0, "nothing starts before the first consumer starts the run")
        #expect(run.future.consumerCount == 2)
        let told = CompletionSpy<Int?>()
        run.future.listen(id, generation) { outcome in told.record(try? outcome?.get()) }

        guard case .waiting = run.start(inTask: false) else {
            Issue.record("the first consumer was served before the run completed")
            return
        }
        #expect(operation.starts == 1)
        operation.complete(5)
        #expect(told.calls == [5])
        #expect(run.future.consumerCount == 0)
        // A consumer that joins after the run finished is served its outcome.
        guard case .served(let outcome?)? = run.future.joinRunInProgress() else {
            Issue.record("a late consumer was not served the outcome")
            return
        }
        #expect(try outcome.get() == 5)
        #expect(operation.starts == 1)
    }

    @Test func joiningARunEveryConsumerLeftReturnsNilAndNeverRestartsIt() {
        let operation = Operation()
        let run = SharedFuture<Int, Never>.unstartedRun(work: operation.work)
        guard case .waiting(let id, _) = run.start(inTask: false) else {
            Issue.record("the first consumer was served before the run completed")
            return
        }
        run.future.remove(id)  // the last consumer leaves: the run is abandoned
        #expect(operation.cancels == 1)
        #expect(run.future.joinRunInProgress() == nil, "joined an abandoned run")
        #expect(run.future.joinRunInProgress() == nil, "the future stays idle")
        #expect(run.future.consumerCount == 0)
        #expect(operation.starts == 1, "the run was started again")
    }

    @Test func aPreCancelledFirstConsumerLeavesAsItStartsTheRunAndCancelsIt() async {
        let operation = Operation()
        let run = SharedFuture<Int, Never>.unstartedRun(work: operation.work)
        await Task {
            withUnsafeCurrentTask { $0?.cancel() }
            guard case .served(nil) = run.start(inTask: true) else {
                Issue.record("a cancelled first consumer stayed")
                return
            }
        }.value
        #expect(operation.starts == 1)
        #expect(operation.cancels == 1)
        #expect(run.future.joinRunInProgress() == nil, "joined an abandoned run")
    }

    @Test func consumerCountCountsTheConsumersOfTheRunInProgress() {
        let pending = PendingOperation<Result<Int, Never>>()
        let future = SharedFuture<Int, Never> { pending.start($0) }
        #expect(future.consumerCount == 0, "idle")
        let first = future.subscribe { (_: Result<Int, any Error>) in }
        #expect(future.consumerCount == 1)
        let second = future.subscribe { (_: Result<Int, any Error>) in }
        #expect(future.consumerCount == 2)
        first.cancel()
        #expect(future.consumerCount == 1)
        pending.complete(.success(1))
        #expect(future.consumerCount == 0, "finished")
        _ = second
    }
}
