import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("Result ⇄ SharedFuture")
struct FutureResultTests {
    @Test func aFutureFromAResultIsAlreadyFinished() async throws {
        let spy = CompletionSpy<Result<Int, any Error>>()
        SharedFuture<Int, TestError>(.success(1)).subscribe(spy.completion)
        #expect(try spy.calls.map { try $0.get() } == [1], "delivered synchronously")
        #expect(try await SharedFuture<Int, TestError>(.failure(TestError(code: 2))).result == .failure(TestError(code: 2)))
    }

    @Test func aFutureGivesBackItsTypedResult() async throws {
        let api = LegacyAPI()
        let result: Result<String, TestError> = try await SharedFuture { api.user(id: -4, completion: $0) }.result
        #expect(result == .failure(TestError(code: -4)))
    }
}
