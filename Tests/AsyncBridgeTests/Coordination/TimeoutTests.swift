import Testing
@_spi(AsyncBridgeInternals) import AsyncBridge
import AsyncBridgeTesting

@Suite("withTimeout", .timeLimit(.minutes(1)))
struct TimeoutTests {
    @Test func anOperationThatFinishesFirstReturnsItsValueAndDisarmsTheTimer() async throws {
        let clock = ManualClock()
        let value = try await withTimeout(.seconds(1), clock: clock) { 42 }
        #expect(value == 42)
        #expect(clock.sleeperCount == 0)
    }

    @Test func anOperationThatFailsFirstThrowsItsError() async {
        let clock = ManualClock()
        await #expect(throws: TestError(code: 7)) {
            try await withTimeout(.seconds(1), clock: clock) { () async throws -> Int in throw TestError(code: 7) }
        }
    }

    @Test func theDeadlineThrowsTimeoutErrorAndCancelsTheOperation() async {
        let clock = ManualClock()
        let gate = CancellationGate()
        let call = Task {
            try await withTimeout(.seconds(5), clock: clock) { await gate.waitForCancellation() }
        }
        await clock.waitForSleepers(1)
        _ = await gate.suspended.firstCall()
        clock.advance(by: .seconds(4))
        #expect(gate.sawCancellation.callCount == 0)
        clock.advance(by: .seconds(1))
        await #expect(throws: TimeoutError.self) { try await call.value }
        _ = await gate.sawCancellation.firstCall()
    }

    @Test func anOperationThatIgnoresCancellationCannotHoldTheCallerPastTheDeadline() async throws {
        let clock = ManualClock()
        let stuck = PendingOperation<Int>()
        let call = Task {
            try await withTimeout(.seconds(1), clock: clock) {
                await withUnsafeContinuation { continuation in stuck.start { continuation.resume(returning: $0) } }
            }
        }
        await stuck.waitUntilStarted()
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        await #expect(throws: TimeoutError.self) { try await call.value }
        #expect(stuck.complete(1))   // the operation ends later; nobody is resumed twice
    }

    @Test func cancellingTheCallerThrowsCancellationErrorAndCancelsTheOperation() async {
        let clock = ManualClock()
        let gate = CancellationGate()
        let call = Task {
            try await withTimeout(.seconds(5), clock: clock) { await gate.waitForCancellation() }
        }
        _ = await gate.suspended.firstCall()
        call.cancel()
        await #expect(throws: CancellationError.self) { try await call.value }
        _ = await gate.sawCancellation.firstCall()
    }

    @Test func aCallerCancelledBeforeItStartsThrowsCancellationError() async {
        let ran = AtomicCounter()
        let call = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await withTimeout(.seconds(5), clock: ManualClock()) { ran.increment() }
        }
        await #expect(throws: CancellationError.self) { try await call.value }
        #expect(ran.value == 0)
    }

    @Test func theOperationRacingTheDeadlineGivesExactlyOneOutcome() async {
        for _ in 0..<1_000 {
            let clock = ManualClock()
            let release = PendingOperation<Int>()
            let call = Task {
                try await withTimeout(.seconds(1), clock: clock) {
                    await withUnsafeContinuation { continuation in release.start { continuation.resume(returning: $0) } }
                }
            }
            await release.waitUntilStarted()
            await clock.waitForSleepers(1)
            async let finish: Bool = release.complete(7)
            clock.advance(by: .seconds(1))
            _ = await finish
            switch await call.result {
            case .success(let value): #expect(value == 7)
            case .failure(let error): #expect(error is TimeoutError)
            }
        }
    }

    @Test func theDeadlineIsMeasuredFromTheCallNotFromWhenTheTimerStarts() async throws {
        for _ in 0..<300 {
            let clock = ManualClock()
            let stuck = PendingOperation<Int>()
            let call = Task {
                try await withTimeout(.seconds(5), clock: clock) {
                    clock.advance(by: .seconds(5))   // the whole limit passes while the operation runs
                    return await withUnsafeContinuation { continuation in stuck.start { continuation.resume(returning: $0) } }
                }
            }
            await stuck.waitUntilStarted()
            // The timer, whenever its task runs, finds its deadline (offset 5) reached and fires.
            await #expect(throws: TimeoutError.self) { try await call.value }
            #expect(stuck.complete(0))
        }
    }
}
