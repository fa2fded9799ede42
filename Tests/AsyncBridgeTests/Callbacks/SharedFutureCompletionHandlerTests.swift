import Dispatch
import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("SharedFuture and async → completion blocks", .timeLimit(.minutes(1)))
struct FutureCompletionHandlerTests {
    /// An async API as new code writes it.
    struct AsyncAPI: Sendable {
        let gate = CancellationGate()

        func user(id: Int) async throws -> String {
            if id < 0 { throw TestError(code: id) }
            return "user\(id)"
        }

        /// Waits until its task is cancelled.
        func hang() async throws -> String {
            await gate.waitForCancellation()
            throw CancellationError()
        }
    }

    /// The old-style wrapper the migration guide recommends.
    @discardableResult
    func user(_ api: AsyncAPI, id: Int, queue: DispatchQueue? = nil,
              completion: @escaping @Sendable (Result<String, any Error>) -> Void) -> CancellationToken {
        SharedFuture { try await api.user(id: id) }.subscribe(deliveringOn: queue, completion)
    }

    @Test func anAsyncFunctionServesCompletionBlockCallers() async throws {
        let api = AsyncAPI()
        let success = CompletionSpy<Result<String, any Error>>()
        let failure = CompletionSpy<Result<String, any Error>>()
        user(api, id: 1, completion: success.completion)
        user(api, id: -1, completion: failure.completion)
        #expect(try await success.firstCall().get() == "user1")
        let failed = await failure.firstCall()  // the two runs end in tasks of their own, in any order
        #expect(throws: TestError(code: -1)) { try failed.get() }
        #expect(success.callCount == 1 && failure.callCount == 1)
    }

    @Test func theCompletionRunsOnTheChosenQueue() async throws {
        let queue = DispatchQueue(label: "caller")
        let spy = CompletionSpy<Bool>()
        SharedFuture<Int, Never> { $0(.success(1)) }.subscribe(deliveringOn: queue) { _ in
            dispatchPrecondition(condition: .onQueue(queue))
            spy.record(true)
        }
        #expect(await spy.firstCall())
    }

    @Test func cancellingTheHandleCancelsTheTaskAndCompletesOnceWithCancellationError() async throws {
        let api = AsyncAPI()
        let spy = CompletionSpy<Result<String, any Error>>()
        let token = SharedFuture { try await api.hang() }.subscribe(spy.completion)
        await api.gate.suspended.firstCall()
        token.cancel()
        token.cancel()
        #expect(await spy.firstCall().isCancellation)
        await api.gate.sawCancellation.firstCall()
        #expect(api.gate.sawCancellation.callCount == 1)
        #expect(spy.callCount == 1)
    }

    @Test func cancellingAfterCompletionChangesNothing() async throws {
        let spy = CompletionSpy<Result<Int, any Error>>()
        let token = SharedFuture<Int, Never> { $0(.success(2)) }.subscribe(spy.completion)
        token.cancel()
        #expect(try spy.calls.map { try $0.get() } == [2])
    }

    @Test func aBrokenContractReachesTheCompletionAsAnError() async throws {
        let spy = CompletionSpy<Result<Int, any Error>>()
        let future = MisuseRecorder().record { SharedFuture<Int, Never> { _ in } }  // drops its block
        future.subscribe(spy.completion)
        #expect(throws: AsyncBridgeError.completionNeverCalled) { try spy.calls.first?.get() }
    }
}

extension Result {
    var isCancellation: Bool {
        if case .failure(let error) = self { return error is CancellationError }
        return false
    }
}
