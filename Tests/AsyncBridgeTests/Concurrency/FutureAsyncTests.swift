import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("async closure → Future", .timeLimit(.minutes(1)))
struct FutureAsyncTests {
    func typedOperation(_ value: Int) async throws(TestError) -> Int {
        if value < 0 { throw TestError(code: value) }
        return value
    }

    @Test func keepsTheTypedFailure() async throws {
        let succeeding = Future { () async throws(TestError) -> Int in try await typedOperation(3) }
        let failing = Future { () async throws(TestError) -> Int in try await typedOperation(-3) }
        #expect(try await succeeding.value == 3)
        let result: Result<Int, TestError> = try await failing.result
        #expect(result == .failure(TestError(code: -3)))
        let neverFailing: Future<Int, Never> = Future { 5 }
        #expect(try await neverFailing.value == 5)
    }

    @Test func startsOnlyWhenAsked() async throws {
        let starts = AtomicCounter()
        let future = Future { () async -> Int in
            starts.increment()
            return starts.value
        }
        #expect(starts.value == 0)
        #expect(try await future.value == 1)
        #expect(try await future.value == 1)
        #expect(starts.value == 1)
    }

    @Test func cancellingTheLastConsumerCancelsTheTask() async throws {
        let started = PendingOperation<Void>()
        let sawCancellation = CompletionSpy<Bool>()
        let future = Future { () async -> Int in
            await withTaskCancellationHandler {
                started.start { _ in }
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    sawCancellation.completion(true)  // hand the test a way in
                    continuation.resume()
                }
                while !Task.isCancelled { await Task.yield() }
            } onCancel: {}
            return 0
        }
        let consumer = Task { try await future.value }
        await started.waitUntilStarted()
        consumer.cancel()
        await #expect(throws: CancellationError.self) { try await consumer.value }
    }
}
