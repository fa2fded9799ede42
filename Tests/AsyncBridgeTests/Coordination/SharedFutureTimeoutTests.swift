import Testing
@_spi(AsyncBridgeInternals) import AsyncBridge
import AsyncBridgeTesting

@Suite("SharedFuture.timeout", .timeLimit(.minutes(1)))
struct FutureTimeoutTests {
    @Test func aFutureThatFinishesFirstGivesItsValueAndDisarmsTheTimer() async throws {
        let clock = ManualClock()
        let operation = PendingOperation<Int>()
        let future = SharedFuture<Int, Never>.neverFailing { operation.start($0) }.timeout(.seconds(5), clock: clock)
        let value = Task { try await future.value }
        await operation.waitUntilStarted()
        await clock.waitForSleepers(1)
        operation.complete(42)
        #expect(try await value.value == 42)
        #expect(clock.sleeperCount == 0, "the timer's sleep is cancelled")
    }

    @Test func theDeadlineFailsWithTimeoutErrorAndCancelsTheRun() async {
        let clock = ManualClock()
        let operation = PendingOperation<Int>()
        let future = SharedFuture<Int, Never>.neverFailing { completion, onCancel in
            operation.start(completion)
            onCancel { operation.cancel() }
        }.timeout(.seconds(5), clock: clock)
        let value = Task { try await future.value }
        await operation.waitUntilStarted()
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(4_999))
        #expect(operation.cancels == 0)
        clock.advance(by: .milliseconds(1))
        await #expect(throws: TimeoutError.self) { try await value.value }
        #expect(operation.cancels == 1)
        #expect(!operation.isHoldingCompletion)
    }

    @Test func theClockStartsWithTheFirstConsumerNotAtCreation() async throws {
        let clock = ManualClock()
        let operation = PendingOperation<Int>()
        let future = SharedFuture<Int, Never>.neverFailing { operation.start($0) }.timeout(.seconds(5), clock: clock)
        clock.advance(by: .seconds(10))
        #expect(operation.starts == 0 && clock.sleeperCount == 0)
        let value = Task { try await future.value }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(4))
        operation.complete(7)
        #expect(try await value.value == 7)
    }

    @Test func aTypedTimeoutKeepsTheFailureType() async throws {
        let clock = ManualClock()
        let operation = PendingOperation<Result<Int, TestError>>()
        let future: SharedFuture<Int, TestError> = SharedFuture { operation.start($0) }
            .timeout(.seconds(1), clock: clock) { TestError(code: 408) }
        let result = Task { try await future.result }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        #expect(try await result.value == .failure(TestError(code: 408)))
    }

    @Test func theUpstreamsTypedFailurePassesThrough() async throws {
        let clock = ManualClock()
        let typed = SharedFuture<Int, TestError> { $0(.failure(TestError(code: 3))) }.timeout(.seconds(1), clock: clock) { TestError(code: 408) }
        #expect(try await typed.result == .failure(TestError(code: 3)))
        let untyped = SharedFuture<Int, TestError> { $0(.failure(TestError(code: 3))) }.timeout(.seconds(1), clock: clock)
        await #expect(throws: TestError(code: 3)) { try await untyped.value }
        #expect(clock.sleeperCount == 0, "no timer for a future that finished during its subscribe")
    }

    @Test func theTimeoutIsMemoisedLikeAnyOutcome() async {
        let clock = ManualClock()
        let operation = PendingOperation<Int>()
        let future = SharedFuture<Int, Never>.neverFailing { operation.start($0) }.timeout(.seconds(1), clock: clock)
        let first = Task { try await future.value }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        await #expect(throws: TimeoutError.self) { try await first.value }
        await #expect(throws: TimeoutError.self) { try await future.value }
        #expect(operation.starts == 1 && clock.sleeperCount == 0)
    }

    @Test func anotherConsumerOfTheUpstreamKeepsItsRun() async throws {
        let clock = ManualClock()
        let operation = PendingOperation<Int>()
        let upstream = SharedFuture<Int, Never>.neverFailing { completion, onCancel in
            operation.start(completion)
            onCancel { operation.cancel() }
        }
        let patient = Task { try await upstream.result }
        await operation.waitUntilStarted()
        let hasty = Task { try await upstream.timeout(.seconds(1), clock: clock).value }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        await #expect(throws: TimeoutError.self) { try await hasty.value }
        #expect(operation.cancels == 0, "the run still has a consumer")
        operation.complete(5)
        #expect(try await patient.value == .success(5))
    }

    @Test func cancellingTheConsumerCancelsTheRunAndTheTimer() async {
        let clock = ManualClock()
        let operation = PendingOperation<Int>()
        let future = SharedFuture<Int, Never>.neverFailing { completion, onCancel in
            operation.start(completion)
            onCancel { operation.cancel() }
        }.timeout(.seconds(5), clock: clock)
        let value = Task { try await future.value }
        await operation.waitUntilStarted()
        await clock.waitForSleepers(1)
        value.cancel()
        await #expect(throws: CancellationError.self) { try await value.value }
        #expect(operation.cancels == 1)
        #expect(clock.sleeperCount == 0)
    }

    @Test func completionRacingTheDeadlineGivesExactlyOneOutcomeAndNoMisuse() async {
        let misuses = MisuseRecorder()
        for _ in 0..<1_000 {
            let clock = ManualClock()
            let operation = PendingOperation<Int>()
            let future = misuses.record {
                SharedFuture<Int, Never>.neverFailing { operation.start($0) }.timeout(.seconds(1), clock: clock)
            }
            let value = Task { try await future.value }
            await operation.waitUntilStarted()
            await clock.waitForSleepers(1)
            async let completed: Bool = operation.complete(7)
            clock.advance(by: .seconds(1))
            _ = await completed
            switch await value.result {
            case .success(let value): #expect(value == 7)
            case .failure(let error): #expect(error is TimeoutError)
            }
        }
        #expect(misuses.misuses.isEmpty)
    }
}
