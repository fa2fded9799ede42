import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("withRetry", .timeLimit(.minutes(1)))
struct RetryTests {
    @Test func retriesUntilAnAttemptSucceeds() async throws {
        let calls = AtomicCounter()
        let value = try await withRetry(maxAttempts: 5) { () throws(TestError) -> Int in
            calls.increment()
            if calls.value < 3 { throw TestError(code: calls.value) }
            return 42
        }
        #expect(value == 42 && calls.value == 3)
    }

    @Test func maxAttemptsCountsEveryAttemptTheFirstIncluded() async {
        let calls = AtomicCounter()
        await #expect(throws: TestError(code: 3)) {
            try await withRetry(maxAttempts: 3) { () throws(TestError) in
                calls.increment()
                throw TestError(code: calls.value)
            }
        }
        #expect(calls.value == 3, "RxSwift's count: three attempts, not Combine's four")
        await #expect(throws: TestError(code: 4)) {
            try await withRetry(maxAttempts: 1) { () throws(TestError) in
                calls.increment()
                throw TestError(code: calls.value)
            }
        }
        #expect(calls.value == 4, "maxAttempts: 1 never retries")
    }

    @Test func shouldRetrySeesTheTypedErrorAndStopsTheRetries() async {
        let calls = AtomicCounter()
        let seen = Box<[TestError]>([])
        await #expect(throws: TestError(code: 2)) {
            try await withRetry(maxAttempts: 10, shouldRetry: { (error: TestError) in
                seen.value.append(error)
                return error.code != 2
            }) { () throws(TestError) in
                calls.increment()
                throw TestError(code: calls.value)
            }
        }
        #expect(calls.value == 2)
        #expect(seen.value == [TestError(code: 1), TestError(code: 2)])
    }

    @Test func waitsOnTheClockAsTheBackoffSays() async throws {
        let clock = ManualClock()
        let calls = AtomicCounter()
        let call = Task {
            try await withRetry(.exponential(initial: .seconds(1)), maxAttempts: 3, clock: clock) { () throws(TestError) -> Int in
                calls.increment()
                if calls.value < 3 { throw TestError() }
                return calls.value
            }
        }
        await clock.waitForSleepers(1)
        #expect(calls.value == 1)
        clock.advance(by: .milliseconds(999))
        #expect(calls.value == 1 && clock.sleeperCount == 1)
        clock.advance(by: .milliseconds(1))
        await clock.waitForSleepers(1)
        #expect(calls.value == 2)
        clock.advance(by: .milliseconds(1_999))
        #expect(calls.value == 2 && clock.sleeperCount == 1, "the second delay is twice the first")
        clock.advance(by: .milliseconds(1))
        #expect(try await call.value == 3)
    }

    @Test func cancellingDuringTheBackoffEndsAtOnceWithoutAnotherAttempt() async {
        let clock = ManualClock()
        let calls = AtomicCounter()
        let call = Task {
            try await withRetry(.fixed(.seconds(10)), maxAttempts: 3, clock: clock) { () throws(TestError) in
                calls.increment()
                throw TestError()
            }
        }
        await clock.waitForSleepers(1)
        call.cancel()
        await #expect(throws: CancellationError.self) { try await call.value }
        #expect(calls.value == 1)
        #expect(clock.sleeperCount == 0)
    }

    @Test func cancellingDuringAnAttemptStartsNoOther() async {
        let gate = CancellationGate()
        let calls = AtomicCounter()
        let call = Task {
            try await withRetry(maxAttempts: 3) { () throws(TestError) in
                calls.increment()
                await gate.waitForCancellation()
                throw TestError()
            }
        }
        _ = await gate.suspended.firstCall()
        call.cancel()
        await #expect(throws: CancellationError.self) { try await call.value }
        #expect(calls.value == 1)
    }

    @MainActor
    @Test func theOperationRunsInTheCallersIsolation() async throws {
        var attempts = 0   // not Sendable: only compiles if the closure stays on the main actor
        try await withRetry(maxAttempts: 3) {
            MainActor.assertIsolated()
            attempts += 1
            if attempts < 3 { throw TestError() }
        }
        #expect(attempts == 3)
    }
}
