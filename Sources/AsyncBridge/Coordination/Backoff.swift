#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Bionic)
import Bionic
#endif

/// How long to wait before each retry: immediately, a fixed delay, or an exponentially growing
/// one, optionally with random jitter.
///
/// Pass it to ``withRetry(_:maxAttempts:clock:shouldRetry:isolation:operation:)``,
/// `Flow.retry` or `SharedFuture.retrying`:
///
/// ```swift
/// let backoff = Backoff.exponential(initial: .milliseconds(100), maxDelay: .seconds(5)).jittered()
/// let user = try await withRetry(backoff, maxAttempts: 4) { try await api.user(id: 42) }
/// ```
///
/// Delays are counted from the failure of the attempt before. Tests can make the jitter
/// deterministic by injecting its random source (`jittered(.full) { 0.5 }`).
public struct Backoff: Sendable {
    @usableFromInline
    enum Growth: Sendable {
        case constant(Duration)
        case exponential(initial: Duration, multiplier: Double, maxDelay: Duration)
    }

    @usableFromInline let growth: Growth
    @usableFromInline let jitter: Jitter?
    /// A number in `0..<1` each time it is called.
    @usableFromInline let random: @Sendable () -> Double

    @usableFromInline
    init(growth: Growth, jitter: Jitter? = nil, random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.growth = growth
        self.jitter = jitter
        self.random = random
    }

    /// Retries at once, without waiting (and without the clock).
    ///
    /// RxSwift's and Combine's `retry(_:)` behave like this.
    ///
    /// ```swift
    /// let flow = source.retry(.immediate, maxAttempts: 3)
    /// ```
    public static var immediate: Backoff { Backoff(growth: .constant(.zero)) }

    /// Waits `delay` before every retry: zero retries at once (as ``immediate``), negative is
    /// a precondition failure (README, "Durations and counts").
    ///
    /// ```swift
    /// let backoff = Backoff.fixed(.seconds(1))
    /// ```
    public static func fixed(_ delay: Duration) -> Backoff {
        checkDuration(delay, of: "Backoff.fixed(_:)", named: "delay")
        return Backoff(growth: .constant(delay))
    }

    /// Waits `initial` before the first retry, `multiplier` times longer before each next one,
    /// and never longer than `maxDelay`.
    ///
    /// ```swift
    /// let backoff = Backoff.exponential(initial: .milliseconds(100), maxDelay: .seconds(5))
    /// // 0.1 s, 0.2 s, 0.4 s, 0.8 s, … 5 s, 5 s
    /// ```
    ///
    /// A negative `initial` (README, "Durations and counts"), a `multiplier` below 1 or not
    /// finite, and a `maxDelay` below `initial` are precondition failures.
    public static func exponential(
        initial: Duration,
        multiplier: Double = 2,
        maxDelay: Duration = .seconds(30)
    ) -> Backoff {
        checkDuration(initial, of: "Backoff.exponential(initial:multiplier:maxDelay:)", named: "initial delay")
        precondition(multiplier >= 1 && multiplier.isFinite, "Backoff.exponential needs a finite multiplier of at least 1 (\(multiplier))")
        precondition(maxDelay >= initial, "Backoff.exponential needs a maxDelay of at least the initial delay (\(maxDelay) < \(initial))")
        return Backoff(growth: .exponential(initial: initial, multiplier: multiplier, maxDelay: maxDelay))
    }

    /// How ``jittered(_:random:)`` spreads each delay, so that many clients that failed at
    /// the same time do not all retry at the same time.
    ///
    /// ```swift
    /// let backoff = Backoff.fixed(.seconds(2)).jittered(.fraction(0.2))   // 1.6 s to 2.4 s
    /// ```
    public enum Jitter: Sendable, Hashable {
        /// Anywhere between zero and the delay ("full jitter").
        case full
        /// Between half the delay and the delay ("equal jitter").
        case equal
        /// Up to this fraction of the delay shorter or longer: `0.2` gives 80% to 120%.
        case fraction(Double)
    }

    /// The same backoff with each delay spread at random by `jitter`.
    ///
    /// ```swift
    /// let backoff = Backoff.exponential(initial: .milliseconds(100)).jittered(.equal)
    /// let predictable = Backoff.fixed(.seconds(1)).jittered(.full) { 0.25 }   // in tests: 0.25 s
    /// ```
    ///
    /// `random` returns a number in `0..<1` on each call (values outside are clamped); inject a
    /// fixed one in tests. A `.fraction` outside `0...1` is a precondition failure.
    public func jittered(
        _ jitter: Jitter = .full,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) -> Backoff {
        if case .fraction(let fraction) = jitter {
            precondition((0...1).contains(fraction), "Backoff.Jitter.fraction needs a fraction in 0...1 (\(fraction))")
        }
        return Backoff(growth: growth, jitter: jitter, random: random)
    }

    /// The delay before retry number `retry` (1 for the retry after the first attempt failed).
    ///
    /// ```swift
    /// #expect(Backoff.exponential(initial: .seconds(1)).delay(beforeRetry: 3) == .seconds(4))
    /// ```
    public func delay(beforeRetry retry: Int) -> Duration {
        precondition(retry >= 1, "Backoff.delay(beforeRetry:) counts retries from 1 (\(retry))")
        let delay: Duration
        switch growth {
        case .constant(let constant):
            delay = constant
        case .exponential(let initial, let multiplier, let maxDelay):
            // Estimated in seconds first: the exact product would trap where it overflows.
            let factor = pow(multiplier, Double(retry - 1))
            let estimate = initial.seconds * factor
            delay = estimate.isFinite && estimate < maxDelay.seconds ? min(initial * factor, maxDelay) : maxDelay
        }
        guard let jitter, delay > .zero else { return delay }
        let unit = min(max(random(), 0), 1)
        switch jitter {
        case .full: return delay * unit
        case .equal: return delay / 2 + (delay / 2) * unit
        case .fraction(let fraction): return delay * (1 - fraction + 2 * fraction * unit)
        }
    }
}

extension Duration {
    @usableFromInline
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }
}
