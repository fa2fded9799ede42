import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("SharedFuture operators", .timeLimit(.minutes(1)))
struct FutureOperatorsTests {
    @Test func mapTransformsTheValueAndKeepsTheFailure() async throws {
        #expect(try await SharedFuture<Int, TestError>(.success(2)).map { $0 * 10 }.value == 20)
        #expect(try await SharedFuture<Int, TestError>(.failure(TestError(code: 3))).map { $0 * 10 }.result == .failure(TestError(code: 3)))
    }

    @Test func flatMapChainsAnotherFuture() async throws {
        let api = LegacyAPI()
        let chained = SharedFuture { api.user(id: 4, completion: $0) }
            .flatMap { name in SharedFuture { api.user(id: name.count, completion: $0) } }
        #expect(try await chained.value == "user5")
        let failed = SharedFuture { api.user(id: -1, completion: $0) }
            .flatMap { _ -> SharedFuture<String, TestError> in Issue.record("must not run"); return SharedFuture(.success("")) }
        #expect(try await failed.result == .failure(TestError(code: -1)))
    }

    @Test func mapErrorCatchAndReplaceErrorHandleFailures() async throws {
        let failing = SharedFuture<Int, TestError>(.failure(TestError(code: 7)))
        #expect(try await failing.mapError { TestError(code: $0.code + 1) }.result == .failure(TestError(code: 8)))
        let recovered: SharedFuture<Int, Never> = failing.catch { error in SharedFuture(.success(error.code)) }
        #expect(try await recovered.value == 7)
        #expect(try await failing.replaceError(with: 0).value == 0)
        #expect(try await SharedFuture<Int, TestError>(.success(1)).replaceError(with: 0).value == 1)
    }

    @Test func aBrokenContractIsNotCaught() async throws {
        let broken = MisuseRecorder().record { SharedFuture<Int, TestError> { _ in } }  // drops its block
        let caught = broken.catch { _ in SharedFuture<Int, Never>(.success(0)) }
        await #expect(throws: AsyncBridgeError.completionNeverCalled) { try await caught.value }
    }

    @Test func chainsAreLazy() async throws {
        let operation = PendingOperation<Result<Int, Never>>()
        let chained = SharedFuture<Int, Never> { operation.start($0) }.map { $0 + 1 }.flatMap { SharedFuture(.success($0 * 2)) }
        #expect(operation.starts == 0)
        let spy = CompletionSpy<Result<Int, any Error>>()
        chained.subscribe(spy.completion)
        #expect(operation.starts == 1)
        operation.complete(.success(1))
        #expect(try spy.calls.map { try $0.get() } == [4])
    }

    @Test func cancellingAChainCancelsTheUpstreamOperation() async throws {
        let operation = PendingOperation<Result<Int, Never>>()
        let upstream = SharedFuture<Int, Never> { completion, onCancel in
            operation.start(completion)
            onCancel { operation.cancel() }
        }
        let task = Task { try await upstream.map { $0 + 1 }.mapError { never -> TestError in }.value }
        await operation.waitUntilStarted()
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(operation.cancels == 1)
    }

    @Test func cancellingAFlatMapCancelsTheInnerOperation() async throws {
        let inner = PendingOperation<Result<Int, Never>>()
        let chained = SharedFuture<Int, Never>(.success(1)).flatMap { _ in
            SharedFuture<Int, Never> { completion, onCancel in
                inner.start(completion)
                onCancel { inner.cancel() }
            }
        }
        let spy = CompletionSpy<Result<Int, any Error>>()
        let token = chained.subscribe(spy.completion)
        #expect(inner.starts == 1)
        token.cancel()
        #expect(inner.cancels == 1)
        #expect(spy.calls.count == 1 && spy.calls.first?.isCancellation == true)
    }

    @Test func aChainStillSharedByAnotherConsumerIsNotCancelled() async throws {
        let operation = PendingOperation<Result<Int, Never>>()
        let upstream = SharedFuture<Int, Never> { completion, onCancel in
            operation.start(completion)
            onCancel { operation.cancel() }
        }
        let direct = CompletionSpy<Result<Int, any Error>>()
        upstream.subscribe(direct.completion)
        upstream.map { $0 }.subscribe { _ in }.cancel()
        #expect(operation.cancels == 0)
        operation.complete(.success(5))
        #expect(try direct.calls.map { try $0.get() } == [5])
    }

    @Test func aChainReleasesItsClosuresAfterCompletion() async throws {
        weak var weakCaptured: Tracked?
        do {
            let captured = Tracked()
            weakCaptured = captured
            let chained = SharedFuture<Int, Never>(.success(1)).flatMap { value in
                _ = captured
                return SharedFuture(.success(value))
            }
            #expect(try await chained.value == 1)
        }
        #expect(weakCaptured == nil)
    }
}
