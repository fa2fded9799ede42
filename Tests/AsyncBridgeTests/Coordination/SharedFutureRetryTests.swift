import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("SharedFuture.retrying", .timeLimit(.minutes(1)))
struct FutureRetryTests {
    @Test func makesAFutureForEveryAttemptUntilOneSucceeds() async throws {
        let attempts = AtomicCounter()
        let future = SharedFuture<Int, TestError>.retrying(maxAttempts: 5) {
            attempts.increment()
            let attempt = attempts.value
            return SharedFuture { $0(attempt < 3 ? .failure(TestError(code: attempt)) : .success(attempt)) }
        }
        #expect(attempts.value == 0, "lazy: nothing runs before the first consumer")
        #expect(try await future.value == 3)
        #expect(try await future.value == 3)
        #expect(attempts.value == 3, "memoised: the second consumer runs nothing")
    }

    @Test func maxAttemptsCountsAttemptsAndTheLastErrorIsTyped() async throws {
        let attempts = AtomicCounter()
        let future = SharedFuture<Int, TestError>.retrying(maxAttempts: 3) {
            attempts.increment()
            let attempt = attempts.value
            return SharedFuture { $0(.failure(TestError(code: attempt))) }
        }
        #expect(try await future.result == .failure(TestError(code: 3)))
        #expect(attempts.value == 3)
    }

    @Test func shouldRetryTurningAnErrorDownEndsTheRetries() async throws {
        let attempts = AtomicCounter()
        let future = SharedFuture<Int, TestError>.retrying(maxAttempts: 5, shouldRetry: { $0.code != 2 }) {
            attempts.increment()
            let attempt = attempts.value
            return SharedFuture { $0(.failure(TestError(code: attempt))) }
        }
        #expect(try await future.result == .failure(TestError(code: 2)))
        #expect(attempts.value == 2)
    }

    @Test func waitsOnTheClockBetweenAttempts() async throws {
        let clock = ManualClock()
        let operations = (0..<2).map { _ in PendingOperation<Result<Int, TestError>>() }
        let attempts = AtomicCounter()
        let future = SharedFuture<Int, TestError>.retrying(.fixed(.seconds(2)), maxAttempts: 2, clock: clock) {
            attempts.increment()
            let operation = operations[attempts.value - 1]
            return SharedFuture { operation.start($0) }
        }
        let result = Task { try await future.result }
        await operations[0].waitUntilStarted()
        operations[0].complete(.failure(TestError(code: 1)))
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(1_999))
        #expect(attempts.value == 1)
        clock.advance(by: .milliseconds(1))
        await operations[1].waitUntilStarted()
        operations[1].complete(.success(9))
        #expect(try await result.value == .success(9))
    }

    @Test func leavingDuringTheBackoffEndsTheWaitAndStartsNoAttempt() async {
        let clock = ManualClock()
        let attempts = AtomicCounter()
        let future = SharedFuture<Int, TestError>.retrying(.fixed(.seconds(1)), maxAttempts: 3, clock: clock) {
            attempts.increment()
            return SharedFuture { $0(.failure(TestError())) }
        }
        let value = Task { try await future.value }
        await clock.waitForSleepers(1)
        value.cancel()
        await #expect(throws: CancellationError.self) { try await value.value }
        #expect(clock.sleeperCount == 0)
        clock.advance(by: .seconds(5))
        #expect(attempts.value == 1)
    }

    @Test func leavingDuringAnAttemptCancelsIt() async {
        let operation = PendingOperation<Result<Int, TestError>>()
        let future = SharedFuture<Int, TestError>.retrying(maxAttempts: 3) {
            SharedFuture { completion, onCancel in
                operation.start(completion)
                onCancel { operation.cancel() }
            }
        }
        let value = Task { try await future.value }
        await operation.waitUntilStarted()
        value.cancel()
        await #expect(throws: CancellationError.self) { try await value.value }
        #expect(operation.cancels == 1 && operation.starts == 1)
    }

    @Test func aBrokenContractIsNotRetried() async {
        let attempts = AtomicCounter()
        let misuses = MisuseRecorder()
        let future = SharedFuture<Int, TestError>.retrying(maxAttempts: 3) {
            attempts.increment()
            return misuses.record { SharedFuture<Int, TestError> { _ in } }   // drops its completion
        }
        await #expect(throws: AsyncBridgeError.completionNeverCalled) { try await future.value }
        #expect(attempts.value == 1)
    }

    @Test func synchronousFailuresRetriedAtOnceRunInConstantStackDepth() async throws {
        let attempts = AtomicCounter()
        let future = SharedFuture<Int, TestError>.retrying(maxAttempts: 100_000) {
            attempts.increment()
            return SharedFuture { $0(.failure(TestError())) }
        }
        #expect(try await future.result == .failure(TestError()))
        #expect(attempts.value == 100_000)
    }

    @Test func releasesItsClosuresAfterTheRun() async throws {
        weak var captured: Tracked?
        do {
            let tracked = Tracked()
            captured = tracked
            let future = SharedFuture<Int, TestError>.retrying(maxAttempts: 2, shouldRetry: { _ in _ = tracked; return true }) {
                _ = tracked
                return SharedFuture { $0(.failure(TestError())) }
            }
            #expect(try await future.result == .failure(TestError()))
        }
        #expect(captured == nil)
    }
}
