import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("ManualClock", .timeLimit(.minutes(1)))
struct ManualClockTests {
    @Test func aSleeperWakesOnlyWhenTimeReachesItsDeadline() async throws {
        let clock = ManualClock()
        let woke = CompletionSpy<ManualClock.Instant>()
        let sleeper = Task {
            try await clock.sleep(until: clock.now.advanced(by: .seconds(2)))
            woke.record(clock.now)
        }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        #expect(clock.sleeperCount == 1)
        #expect(woke.callCount == 0)
        clock.advance(by: .seconds(1))
        try await sleeper.value
        #expect(woke.calls == [ManualClock.Instant(offset: .seconds(2))])
        #expect(clock.sleeperCount == 0)
    }

    @Test func advanceToWakesEverySleeperItReaches() async throws {
        let clock = ManualClock()
        let sleepers = (1...3).map { seconds in
            Task { try await clock.sleep(until: .init(offset: .seconds(seconds))) }
        }
        await clock.waitForSleepers(3)
        clock.advance(to: .init(offset: .seconds(2)))
        try await sleepers[0].value
        try await sleepers[1].value
        #expect(clock.sleeperCount == 1)
        clock.advance(to: .init(offset: .seconds(1)))   // earlier than now: time does not go back
        #expect(clock.now == .init(offset: .seconds(2)))
        clock.advance(by: .seconds(1))
        try await sleepers[2].value
    }

    @Test func aDeadlineInThePastReturnsAtOnce() async throws {
        let clock = ManualClock()
        clock.advance(by: .seconds(5))
        try await clock.sleep(until: .init(offset: .seconds(1)))
        try await clock.sleep(for: .zero)
        #expect(clock.sleeperCount == 0)
    }

    @Test func cancellingASleeperThrowsAndRemovesIt() async {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(1)) }
        await clock.waitForSleepers(1)
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test func aCancelledTaskDoesNotSleep() async {
        let clock = ManualClock()
        let sleeper = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(for: .seconds(1))
        }
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test func cancellationRacingTheSleepNeverHangs() async {
        let clock = ManualClock()
        for _ in 0..<1_000 {
            let sleeper = Task { try await clock.sleep(for: .seconds(1)) }
            sleeper.cancel()
            await #expect(throws: CancellationError.self) { try await sleeper.value }
        }
        #expect(clock.sleeperCount == 0)
    }
}
