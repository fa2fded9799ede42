import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("async closure → SharedFuture", .timeLimit(.minutes(1)))
struct FutureAsyncTests {
    func typedOperation(_ value: Int) async throws(TestError) -> Int {
        if value < 0 { throw TestError(code: value) }
        return value
    }

    @Test func keepsTheTypedFailure() async throws {
        let succeeding = SharedFuture { () async throws(TestError) -> Int in try await typedOperation(3) }
        let failing = SharedFuture { () async throws(TestError) -> Int in try await typedOperation(-3) }
        #expect(try await succeeding.value == 3)
        let result: Result<Int, TestError> = try await failing.result
        #expect(result == .failure(TestError(code: -3)))
        let neverFailing: SharedFuture<Int, Never> = SharedFuture { 5 }
        #expect(try await neverFailing.value == 5)
    }

    @Test func startsOnlyWhenAsked() async throws {
        let starts = AtomicCounter()
        let future = SharedFuture { () async -> Int in
            starts.increment()
            return starts.value
        }
        #expect(starts.value == 0)
        #expect(try await future.value == 1)
        #expect(try await future.value == 1)
        #expect(starts.value == 1)
    }

    @Test func cancellingTheLastConsumerCancelsTheTask() async throws {
        let gate = CancellationGate()
        let future = SharedFuture { () async throws -> Int in
            await gate.waitForCancellation()
            throw CancellationError()
        }
        let consumer = Task { try await future.value }
        await gate.suspended.firstCall()
        consumer.cancel()
        await #expect(throws: CancellationError.self) { try await consumer.value }
        await gate.sawCancellation.firstCall()
        #expect(gate.sawCancellation.callCount == 1)
    }
}
