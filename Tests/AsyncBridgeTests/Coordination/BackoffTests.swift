import Testing
import AsyncBridge

@Suite("Backoff", .timeLimit(.minutes(1)))
struct BackoffTests {
    @Test func immediateNeverWaits() {
        #expect((1...5).map(Backoff.immediate.delay(beforeRetry:)) == Array(repeating: .zero, count: 5))
    }

    @Test func fixedWaitsTheSameEachTime() {
        #expect((1...3).map(Backoff.fixed(.seconds(2)).delay(beforeRetry:)) == [.seconds(2), .seconds(2), .seconds(2)])
    }

    @Test func exponentialGrowsByTheMultiplierUpToTheMaximum() {
        let backoff = Backoff.exponential(initial: .milliseconds(100), maxDelay: .seconds(1))
        #expect((1...6).map(backoff.delay(beforeRetry:)) == [
            .milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1), .seconds(1),
        ])
        let tripling = Backoff.exponential(initial: .seconds(1), multiplier: 3, maxDelay: .seconds(60))
        #expect((1...4).map(tripling.delay(beforeRetry:)) == [.seconds(1), .seconds(3), .seconds(9), .seconds(27)])
    }

    @Test func aLateRetryDoesNotOverflow() {
        let backoff = Backoff.exponential(initial: .seconds(1), maxDelay: .seconds(30))
        #expect(backoff.delay(beforeRetry: 10_000) == .seconds(30))
        #expect(backoff.delay(beforeRetry: .max) == .seconds(30))
    }

    @Test func fullJitterSpreadsBetweenZeroAndTheDelay() {
        #expect(Backoff.fixed(.seconds(2)).jittered(.full) { 0 }.delay(beforeRetry: 1) == .zero)
        #expect(Backoff.fixed(.seconds(2)).jittered(.full) { 0.25 }.delay(beforeRetry: 1) == .milliseconds(500))
        #expect(Backoff.fixed(.seconds(2)).jittered { 1 }.delay(beforeRetry: 1) == .seconds(2))
    }

    @Test func equalJitterSpreadsBetweenHalfAndTheDelay() {
        #expect(Backoff.fixed(.seconds(2)).jittered(.equal) { 0 }.delay(beforeRetry: 1) == .seconds(1))
        #expect(Backoff.fixed(.seconds(2)).jittered(.equal) { 0.5 }.delay(beforeRetry: 1) == .milliseconds(1_500))
    }

    @Test func fractionJitterSpreadsAroundTheDelay() {
        let backoff = Backoff.fixed(.seconds(10))
        func isClose(_ delay: Duration, _ expected: Duration) -> Bool {   // within a nanosecond: Double arithmetic
            delay - expected < .nanoseconds(1) && expected - delay < .nanoseconds(1)
        }
        #expect(isClose(backoff.jittered(.fraction(0.2)) { 0 }.delay(beforeRetry: 1), .seconds(8)))
        #expect(isClose(backoff.jittered(.fraction(0.2)) { 0.5 }.delay(beforeRetry: 1), .seconds(10)))
        #expect(isClose(backoff.jittered(.fraction(0.2)) { 1 }.delay(beforeRetry: 1), .seconds(12)))
        #expect(!isClose(backoff.jittered(.fraction(0.2)) { 1 }.delay(beforeRetry: 1), .seconds(11)))
    }

    @Test func jitterAppliesAfterTheMaximumAndClampsTheRandomSource() {
        let backoff = Backoff.exponential(initial: .seconds(1), maxDelay: .seconds(4)).jittered(.full) { 7 }
        #expect(backoff.delay(beforeRetry: 5) == .seconds(4))
        #expect(Backoff.fixed(.seconds(4)).jittered(.full) { -1 }.delay(beforeRetry: 1) == .zero)
    }

    @Test func jitterCallsTheRandomSourceOncePerDelay() {
        let calls = AtomicCounter()
        let backoff = Backoff.fixed(.seconds(1)).jittered { calls.increment(); return 0.5 }
        _ = (1...3).map(backoff.delay(beforeRetry:))
        #expect(calls.value == 3)
    }
}
