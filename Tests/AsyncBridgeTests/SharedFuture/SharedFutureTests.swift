import Dispatch
import Foundation
import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("SharedFuture: lazy, shared, memoised, cancellable", .timeLimit(.minutes(1)))
struct FutureTests {
    @Test func doesNotStartUntilTheFirstConsumerArrives() async throws {
        let operation = PendingOperation<Result<Int, Never>>()
        let future = SharedFuture<Int, Never> { operation.start($0) }
        #expect(operation.starts == 0)
        let spy = CompletionSpy<Result<Int, any Error>>()
        future.subscribe(spy.completion)
        #expect(operation.starts == 1)
        operation.complete(.success(7))
        #expect(try spy.calls.map { try $0.get() } == [7])
    }

    @Test func concurrentConsumersShareOneRun() async throws {
        let operation = PendingOperation<Result<Int, Never>>()
        let future = SharedFuture<Int, Never> { operation.start($0) }
        let first = CompletionSpy<Result<Int, any Error>>()
        let second = CompletionSpy<Result<Int, any Error>>()
        future.subscribe(first.completion)
        future.subscribe(second.completion)
        let awaiting = Task { try await future.value }
        operation.complete(.success(3))
        #expect(try await awaiting.value == 3)
        #expect(try first.calls.map { try $0.get() } == [3])
        #expect(try second.calls.map { try $0.get() } == [3])
        #expect(operation.starts == 1)
    }

    @Test func lateConsumersGetTheStoredResultWithoutRerunning() async throws {
        let starts = AtomicCounter()
        let future = SharedFuture<Int, Never> { completion in
            starts.increment()
            completion(.success(starts.value))
        }
        #expect(try await future.value == 1)
        #expect(try await future.value == 1)
        #expect(try await future.result.get() == 1)
        #expect(starts.value == 1)
    }

    @Test func valueThrowsTheFailureAndResultReturnsItTyped() async throws {
        let future = SharedFuture<Int, TestError> { $0(.failure(TestError(code: 4))) }
        await #expect(throws: TestError(code: 4)) { try await future.value }
        let result = try await future.result
        #expect(result == .failure(TestError(code: 4)))
    }

    @Test func cancelActionRunsOnceWhenTheLastConsumerLeaves() async throws {
        let operation = PendingOperation<Result<Int, Never>>()
        let future = SharedFuture<Int, Never> { completion, onCancel in
            operation.start(completion)
            onCancel { operation.cancel() }
        }
        let first = CompletionSpy<Result<Int, any Error>>()
        let second = CompletionSpy<Result<Int, any Error>>()
        let firstToken = future.subscribe(first.completion)
        let secondToken = future.subscribe(second.completion)
        firstToken.cancel()
        #expect(operation.cancels == 0, "another consumer still waits")
        #expect(first.calls.count == 1 && second.calls.isEmpty)
        #expect(first.calls.first?.isCancellation == true)
        secondToken.cancel()
        secondToken.cancel()
        #expect(operation.cancels == 1)
        #expect(second.calls.count == 1)
    }

    @Test func cancelActionNeverRunsAfterCompletion() async throws {
        let operation = PendingOperation<Result<Int, Never>>()
        let future = SharedFuture<Int, Never> { completion, onCancel in
            operation.start(completion)
            onCancel { operation.cancel() }
        }
        let spy = CompletionSpy<Result<Int, any Error>>()
        let token = future.subscribe(spy.completion)
        operation.complete(.success(1))
        token.cancel()
        #expect(operation.cancels == 0)
        #expect(spy.callCount == 1)
    }

    @Test func aFutureCancelledBeforeCompletionStartsAgainForTheNextConsumer() async throws {
        let operation = PendingOperation<Result<Int, Never>>()
        let future = SharedFuture<Int, Never> { completion, onCancel in
            operation.start(completion)
            onCancel { operation.cancel() }
        }
        future.subscribe { _ in }.cancel()
        #expect(operation.starts == 1 && operation.cancels == 1)
        let spy = CompletionSpy<Result<Int, any Error>>()
        future.subscribe(spy.completion)
        #expect(operation.starts == 2)
        operation.complete(.success(9))
        #expect(try spy.calls.map { try $0.get() } == [9])
    }

    @Test func cancellingTheAwaitingTaskRunsTheCancelActionAndThrowsCancellationError() async throws {
        let operation = PendingOperation<Result<Int, Never>>()
        let future = SharedFuture<Int, Never> { completion, onCancel in
            operation.start(completion)
            onCancel { operation.cancel() }
        }
        let task = Task { try await future.value }
        await operation.waitUntilStarted()
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(operation.cancels == 1)
    }

    @Test func aPreCancelledTaskStartsThenCancelsOnce() async throws {
        let operation = PendingOperation<Result<Int, Never>>()
        let future = SharedFuture<Int, Never> { completion, onCancel in
            operation.start(completion)
            onCancel { operation.cancel() }
        }
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await future.value
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(operation.starts == 1)
        #expect(operation.cancels == 1)
    }

    @Test func aCancelArrivingBeforeTheCancelActionIsHandedBackIsLatched() async throws {
        let cancels = AtomicCounter()
        let future = SharedFuture<Int, Never> { (_: @escaping @Sendable (Result<Int, Never>) -> Void, onCancel) in
            // The consumer is cancelled while the operation is still starting.
            withUnsafeCurrentTask { $0?.cancel() }
            #expect(cancels.value == 0)
            onCancel { cancels.increment() }
        }
        await #expect(throws: CancellationError.self) { try await future.value }
        #expect(cancels.value == 1)
    }

    @Test func aPreCancelledConsumerJoiningARunLeavesWithoutCancellingIt() async throws {
        let operation = PendingOperation<Result<Int, Never>>()
        let future = SharedFuture<Int, Never> { completion, onCancel in
            operation.start(completion)
            onCancel { operation.cancel() }
        }
        let spy = CompletionSpy<Result<Int, any Error>>()
        future.subscribe(spy.completion)  // starts the run and stays
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await future.value
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(operation.cancels == 0, "another consumer still waits")
        operation.complete(.success(8))
        #expect(try spy.calls.map { try $0.get() } == [8])
        #expect(operation.starts == 1)
    }

    @Test func aRunThatCompletesWhileStartingServesAPreCancelledTask() async throws {
        // The completion came first, so there is nothing to cancel: the cancel action never
        // runs after completion, and the value is not thrown away.
        let cancels = AtomicCounter()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await SharedFuture<Int, Never> { completion, onCancel in
                completion(.success(9))
                onCancel { cancels.increment() }
            }.value
        }
        #expect(try await task.value == 9)
        #expect(cancels.value == 0)
    }

    @Test func consumersWaitingOnARunThatCompletesLaterAllGetTheOutcome() async throws {
        let operation = PendingOperation<Result<Int, Never>>()
        let future = SharedFuture<Int, Never> { operation.start($0) }
        let tasks = (0..<8).map { _ in Task { try await future.value } }
        await operation.waitUntilStarted()
        operation.complete(.success(4))
        for task in tasks { #expect(try await task.value == 4) }
        #expect(operation.starts == 1)
    }

    @Test func aCompletionCalledInsideTheStartingCallIsDelivered() async throws {
        let future = SharedFuture<Int, Never> { $0(.success(5)) }
        #expect(try await future.value == 5)
        let spy = CompletionSpy<Result<Int, any Error>>()
        let reentrant = SharedFuture<Int, Never> { $0(.success(6)) }
        reentrant.subscribe { result in
            // A handler that subscribes again from inside its own delivery.
            reentrant.subscribe(spy.completion)
        }
        #expect(try spy.calls.map { try $0.get() } == [6])
    }

    @Test func aCompletionCalledOnAnotherThreadWhileStartingIsDeliveredAndNeverCancelled() async throws {
        // The run is still starting, but the call does not come from the starter's thread: the
        // starter must take the outcome under the lock, not as a synchronous completion.
        let cancels = AtomicCounter()
        let future = SharedFuture<Int, Never> { completion, onCancel in
            // A plain thread: blocking on a dispatch queue's work here could starve the pool
            // that runs both (on Linux the concurrency runtime shares dispatch's threads).
            let called = DispatchSemaphore(value: 0)
            Thread {
                completion(.success(7))
                called.signal()
            }.start()
            called.wait()
            onCancel { cancels.increment() }
        }
        #expect(try await future.value == 7)
        #expect(try await future.value == 7)
        #expect(cancels.value == 0)
    }

    @Test func aCompletionCalledFromANestedFutureWhileStartingIsDelivered() async throws {
        // Both runs complete synchronously on one thread, the outer one from inside the inner
        // one's delivery.
        let inner = SharedFuture<Int, Never> { $0(.success(20)) }
        let outer = SharedFuture<Int, any Error> { completion in
            inner.subscribe { completion($0.map { $0 + 1 }) }
        }
        #expect(try await outer.value == 21)
        #expect(try await inner.value == 20)
    }

    @Test func aCompletionReleasedWithoutBeingCalledFailsWithADefinedError() async throws {
        let recorder = MisuseRecorder()
        let operation = PendingOperation<Result<Int, Never>>()
        let (future, line) = recorder.record { (SharedFuture<Int, Never> { operation.start($0) }, #line) }
        let task = Task { try await future.value }
        await operation.waitUntilStarted()
        operation.drop()
        await #expect(throws: AsyncBridgeError.completionNeverCalled) { try await task.value }
        await #expect(throws: AsyncBridgeError.completionNeverCalled) { try await future.result }
        #expect(recorder.expectable == reported([ExpectedReport(
            .completionNeverCalled, "SharedFuture(_:)", line: line,
            "the future's run ended with AsyncBridgeError.completionNeverCalled, which value and result throw"
        )]))
    }

    @Test func aCompletionDroppedAfterCancellationIsNotMisuse() async throws {
        let recorder = MisuseRecorder()
        let operation = PendingOperation<Result<Int, Never>>()
        let future = recorder.record {
            SharedFuture<Int, Never> { completion, onCancel in
                operation.start(completion)
                onCancel { operation.cancel() }  // drops the completion block
            }
        }
        future.subscribe { _ in }.cancel()
        #expect(!operation.isHoldingCompletion)
        #expect(recorder.misuses.isEmpty)
    }

    @Test func aSecondCallIsIgnoredAndReported() async throws {
        let recorder = MisuseRecorder()
        let line = #line + 2
        let future = recorder.record {
            SharedFuture<Int, Never> { completion in
                completion(.success(1))
                completion(.success(2))
            }
        }
        #expect(try await future.value == 1)
        #expect(recorder.expectable == reported([
            ExpectedReport(.completionCalledMoreThanOnce, "SharedFuture(_:)", line: line, "the later call was ignored"),
        ]))
    }

    @Test func twoThreadsCallingTheCompletionAtOnceProduceOneOutcome() async throws {
        for _ in 0..<10_000 {
            let recorder = MisuseRecorder()
            let operation = PendingOperation<Result<Int, Never>>()
            let future = recorder.record { SharedFuture<Int, Never> { operation.start($0) } }
            let spy = CompletionSpy<Result<Int, any Error>>()
            future.subscribe(spy.completion)
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                operation.complete(.success(index))
            }
            #expect(spy.callCount == 1)
            #expect(recorder.misuses == reported([.completionCalledMoreThanOnce]))
        }
    }

    @Test func cancelRacingCompletionRunsTheCancelActionAtMostOnceWithOneOutcome() async throws {
        for _ in 0..<10_000 {
            let operation = PendingOperation<Result<Int, Never>>()
            let future = SharedFuture<Int, Never> { completion, onCancel in
                operation.start(completion)
                onCancel { operation.cancel() }
            }
            let spy = CompletionSpy<Result<Int, any Error>>()
            let token = future.subscribe(spy.completion)
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                if index == 0 { token.cancel() } else { operation.complete(.success(1)) }
            }
            #expect(spy.callCount == 1)
            switch spy.calls.first {
            case .success(1)?: #expect(operation.cancels == 0)
            case .failure(let error)?: #expect(error is CancellationError && operation.cancels == 1)
            default: Issue.record("unexpected outcome \(String(describing: spy.calls.first))")
            }
        }
    }

    @Test func nothingIsRetainedAfterCompletion() async throws {
        weak var weakCaptured: Tracked?
        weak var weakHandlerCapture: Tracked?
        do {
            let captured = Tracked()
            let handlerCapture = Tracked()
            weakCaptured = captured
            weakHandlerCapture = handlerCapture
            let future = SharedFuture<Int, Never> { completion in
                _ = captured
                completion(.success(1))
            }
            let spy = CompletionSpy<Result<Int, any Error>>()
            future.subscribe { result in
                _ = handlerCapture
                spy.record(result)
            }
            #expect(try await future.value == 1)
        }
        #expect(weakCaptured == nil)
        #expect(weakHandlerCapture == nil)
    }

    @Test func aFinishedFutureReleasesItsOperation() async throws {
        weak var weakCaptured: Tracked?
        let future: SharedFuture<Int, Never>
        do {
            let captured = Tracked()
            weakCaptured = captured
            future = SharedFuture { completion in
                _ = captured
                completion(.success(1))
            }
        }
        #expect(weakCaptured != nil, "kept until it has run")
        #expect(try await future.value == 1)
        #expect(weakCaptured == nil, "released although the future lives on")
        #expect(try await future.value == 1)
    }

    @Test func aCancelledConsumerIsReleasedEvenWhileTheOperationRuns() async throws {
        weak var weakHandlerCapture: Tracked?
        let operation = PendingOperation<Result<Int, Never>>()
        let future = SharedFuture<Int, Never> { operation.start($0) }  // cannot be cancelled
        let token: CancellationToken
        do {
            let handlerCapture = Tracked()
            weakHandlerCapture = handlerCapture
            token = future.subscribe { _ in _ = handlerCapture }
        }
        #expect(weakHandlerCapture != nil)
        token.cancel()
        #expect(operation.isHoldingCompletion)
        #expect(weakHandlerCapture == nil)
    }

    @Test func nothingIsRetainedAfterCancellation() async throws {
        weak var weakCaptured: Tracked?
        let operation = PendingOperation<Result<Int, Never>>()
        do {
            let captured = Tracked()
            weakCaptured = captured
            let future = SharedFuture<Int, Never> { completion, onCancel in
                _ = captured
                operation.start(completion)
                onCancel { operation.cancel() }
            }
            let task = Task { try await future.value }
            await operation.waitUntilStarted()
            task.cancel()
            _ = await task.result
        }
        #expect(!operation.isHoldingCompletion)
        #expect(weakCaptured == nil)
    }
    /// A cancel action that owns a "make sure the completion is called" guard: when the run
    /// completes, the cancel action is released, the guard's `deinit` calls the completion a
    /// second time, and that call takes the future's lock. Released under the lock, it
    /// deadlocked the thread that delivered the first completion.
    @Test(arguments: [false, true])
    func aCancelActionWhoseReleaseCallsTheCompletionDoesNotDeadlock(throughFlow: Bool) async throws {
        let completion = Box<(@Sendable (Result<Int, Never>) -> Void)?>(nil)
        let body: @Sendable (@escaping @Sendable (Result<Int, Never>) -> Void, (@escaping CancelAction) -> Void) -> Void = { done, onCancel in
            completion.value = done
            let guardian = CompletionGuard { done(.success(-1)) }
            onCancel { _ = guardian }
        }
        let received = Box<[Int]>([])
        let token: CancellationToken
        if throughFlow {
            token = Flow<Int, Never>(body).subscribe(onValue: { value in received.value.append(value) }, onCompletion: { _ in })
        } else {
            token = SharedFuture<Int, Never>(body).subscribe { result in received.value.append((try? result.get()) ?? -2) }
        }
        let delivered = DispatchSemaphore(value: 0)
        DispatchQueue(label: "completes").async {
            completion.take()?(.success(7))
            delivered.signal()
        }
        // On a deadlock the future's lock stays held: the test then leaves without touching it.
        try #require(delivered.wait(timeout: .now() + 10) == .success, "the completing thread deadlocked")
        #expect(received.value == [7])
        token.cancel()
    }
}

/// Calls `onRelease` from its deinitialiser: a guard that makes sure a completion is called.
private final class CompletionGuard: Sendable {
    let onRelease: @Sendable () -> Void
    init(_ onRelease: @escaping @Sendable () -> Void) { self.onRelease = onRelease }
    deinit { onRelease() }
}
