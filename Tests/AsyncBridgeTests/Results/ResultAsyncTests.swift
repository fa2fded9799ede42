import Testing
import AsyncBridge

@Suite("Result ⇄ async")
struct ResultAsyncTests {
    func load(_ value: Int) async throws(TestError) -> Int {
        if value < 0 { throw TestError(code: value) }
        return value
    }

    @Test func capturesAnAsyncClosureWithItsTypedFailure() async {
        let success: Result<Int, TestError> = await Result { () async throws(TestError) -> Int in try await load(1) }
        let failure: Result<Int, TestError> = await Result { () async throws(TestError) -> Int in try await load(-1) }
        #expect(success == .success(1))
        #expect(failure == .failure(TestError(code: -1)))
    }

    @Test func roundTripsWithoutLosingTheErrorType() async {
        let original: Result<Int, TestError> = .failure(TestError(code: 9))
        func asAsync() async throws(TestError) -> Int { try original.get() }
        let roundTripped = await Result { () async throws(TestError) -> Int in try await asAsync() }
        #expect(roundTripped == original)
    }
}
