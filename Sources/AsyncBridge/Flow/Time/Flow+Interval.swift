extension Flow where Element == Int, Failure == Never {
    /// Sends 0, 1, 2, … one every `period`, the first `period` after subscribing, until
    /// cancelled.
    ///
    /// ```swift
    /// let seconds = Flow<Int, Never>.interval(.seconds(1), clock: clock)
    /// ```
    ///
    /// RxSwift: `Observable<Int>.interval(_:scheduler:)`; Combine:
    /// `Timer.publish(every:on:in:).autoconnect()` (which sends dates).
    ///
    /// Each subscription has its own schedule, `start + k × period`, on a timer task of its own
    /// (cancelling ends it). Ticks missed while the task woke late or the handler was busy are
    /// merged into one; the value counts the ticks sent, not the periods elapsed.
    ///
    /// - Parameters:
    ///   - period: The time between two ticks, on `clock`; more than zero.
    ///   - tolerance: The clock's leeway for each tick.
    ///   - clock: The clock to measure with; `ManualClock` (AsyncBridgeTesting) in tests.
    @inlinable
    public static func interval<C: Clock>(
        _ period: C.Duration,
        tolerance: C.Duration? = nil,
        clock: C = ContinuousClock()
    ) -> Flow {
        // Checked here too, so that a report names the operator the caller called.
        checkDuration(period, of: "Flow.interval(_:)", named: "period", allowingZero: false)
        checkTolerance(tolerance, of: "Flow.interval(_:)")
        return timer(after: period, period: period, tolerance: tolerance, clock: clock)
    }

    /// Sends 0 once `delay` has passed after subscribing; then, with a `period`, 1, 2, … one
    /// every `period` until cancelled, and without one, finishes.
    ///
    /// ```swift
    /// let hideToast = Flow<Int, Never>.timer(after: .seconds(3), clock: clock)
    /// let refresh = Flow<Int, Never>.timer(after: .zero, period: .seconds(30), clock: clock)   // 0 at once
    /// ```
    ///
    /// RxSwift: `Observable<Int>.timer(_:period:scheduler:)`; Combine: none
    /// (`Just(0).delay(for:scheduler:)`).
    ///
    /// Later ticks follow ``interval(_:tolerance:clock:)``'s rules (missed ones are skipped).
    ///
    /// - Parameters:
    ///   - delay: The time from subscribing to the first tick, on `clock`; zero sends it during
    ///     `subscribe`; negative is a precondition failure.
    ///   - period: The time between two ticks after the first, more than zero; `nil`: only one.
    ///   - tolerance: The clock's leeway for each tick.
    ///   - clock: The clock to measure with; `ManualClock` (AsyncBridgeTesting) in tests.
    @inlinable
    public static func timer<C: Clock>(
        after delay: C.Duration,
        period: C.Duration? = nil,
        tolerance: C.Duration? = nil,
        clock: C = ContinuousClock()
    ) -> Flow {
        checkDuration(delay, of: "Flow.timer(after:period:)", named: "delay")
        if let period { checkDuration(period, of: "Flow.timer(after:period:)", named: "period", allowingZero: false) }
        checkTolerance(tolerance, of: "Flow.timer(after:period:)")
        return Flow { subscriber in
            // The next tick's number and when it is due; the handler's alone.
            let next = SerialState((count: 0, deadline: clock.now.advanced(by: delay)))
            let timed = TimedOperator(
                downstream: subscriber, receiving: Never.self, clock: clock, tolerance: tolerance
            ) { timed, _, now in
                // Only ticks come: a source has no upstream.
                if next.value.deadline <= now {
                    guard timed.send(next.value.count) else { return }
                    guard let period else { return timed.end(.finished) }
                    // After the subscriber's handler: the time it took counts.
                    let deadline = firstTick(after: next.value.deadline, every: period, laterThan: timed.clock.now)
                    next.value = (next.value.count + 1, deadline)
                }
                timed.arm(next.value.deadline)
            }
            timed.tick()  // arms the first deadline, or sends at once if it is due
        }
    }
}

/// The first instant of the schedule `last + k × period` (k ≥ 1) later than `now`: ticks whose
/// time passed while the subscriber was busy are skipped, not sent late.
@inlinable
func firstTick<Instant: InstantProtocol>(
    after last: Instant,
    every period: Instant.Duration,
    laterThan now: Instant
) -> Instant {
    var next = last.advanced(by: period)
    guard next <= now else { return next }
    // Jump over the missed periods at once, then step past any rounding.
    next = next.advanced(by: period * Int((next.duration(to: now) / period).rounded(.down)))
    while next <= now { next = next.advanced(by: period) }
    return next
}
