extension Flow where Element == Int, Failure == Never {
    /// Sends 0, 1, 2, … one every `period`, the first `period` after subscribing, until
    /// cancelled.
    ///
    /// Useful for polling, a clock on screen, or a countdown (`.prefix(10)`).
    ///
    /// ```swift
    /// Flow<Int, Never>.interval(.seconds(1), clock: clock)
    ///     .subscribe(onValue: { seconds in label.text = "\(seconds) s" }, onCompletion: { _ in })
    ///     .store(in: bag)
    /// ```
    ///
    /// Each subscription has its own schedule, from the moment it subscribes (a cold flow, as
    /// RxSwift's `interval`; Combine's `Timer.publish` is one shared timer that
    /// `.autoconnect()` starts). The element is the number of ticks sent before this one.
    ///
    /// A slow subscriber gets no burst of stale ticks. The ticks keep to the schedule
    /// `start + k × period`, and instants that pass before a tick has gone out are merged into
    /// it: when the timer's task wakes late (the process was suspended, the threads were busy),
    /// one tick goes out at once for all the instants that passed; when the subscriber's
    /// handler (which runs on the timer's task) returns after more instants have passed, those
    /// are skipped. Either way the next tick comes at the next instant of the schedule, and the
    /// count goes on by one: it counts the ticks sent, not the periods elapsed.
    ///
    /// Combine's `Timer.publish` skips too (a run-loop timer skips the firings it missed, and a
    /// tick the subscriber has no demand for is dropped), as does RxSwift on a dispatch-queue
    /// scheduler (its timer source coalesces missed firings into one call, and RxSwift counts
    /// calls), and swift-async-algorithms' `AsyncTimerSequence`. RxSwift's emulated periodic
    /// scheduling (`SchedulePeriodicRecursive`, on schedulers without a timer of their own)
    /// catches up instead, sending the missed ticks back to back. A screen wants the current
    /// tick, not a queue of old ones.
    ///
    /// One timer task per subscription sends the ticks; cancelling ends it.
    ///
    /// RxSwift: `Observable<Int>.interval(_:scheduler:)`; Combine:
    /// `Timer.publish(every:on:in:).autoconnect()` (which sends dates).
    ///
    /// - Parameters:
    ///   - period: The time between two ticks, on `clock`; more than zero (zero or negative: a
    ///     precondition failure, README, "Durations and counts").
    ///   - tolerance: The clock's leeway for each tick.
    ///   - clock: The clock to measure with; `ManualClock` (AsyncBridgeTesting) in tests.
    @inlinable
    public static func interval<C: Clock>(
        _ period: C.Duration,
        tolerance: C.Duration? = nil,
        clock: C = ContinuousClock()
    ) -> Flow {
        timer(after: period, period: period, tolerance: tolerance, clock: clock)
    }

    /// Sends 0 once `delay` has passed after subscribing; then, with a `period`, 1, 2, … one
    /// every `period` until cancelled, and without one, finishes.
    ///
    /// ```swift
    /// let hideToast = Flow<Int, Never>.timer(after: .seconds(3), clock: clock)
    /// let refresh = Flow<Int, Never>.timer(after: .zero, period: .seconds(30), clock: clock)   // 0 at once
    /// ```
    ///
    /// A `delay` of zero sends 0 during `subscribe`. The ticks after it follow
    /// ``interval(_:tolerance:clock:)``'s rules: the schedule is `start + delay + k × period`,
    /// and ticks that pass while the subscriber is busy are skipped, not sent late.
    ///
    /// RxSwift: `Observable<Int>.timer(_:period:scheduler:)`; Combine: none
    /// (`Just(0).delay(for:scheduler:)` for one tick, `Timer.publish(every:on:in:)` for a
    /// period without a delay of its own).
    ///
    /// - Parameters:
    ///   - delay: The time from subscribing to the first tick, on `clock`: zero sends it during
    ///     `subscribe`; negative, a precondition failure (README, "Durations and counts").
    ///   - period: The time between two ticks after the first; `nil`: only one. More than
    ///     zero (zero or negative: a precondition failure).
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
    // Jump over the missed periods at once (the process may have been suspended for hours),
    // then step past any rounding.
    next = next.advanced(by: period * Int((next.duration(to: now) / period).rounded(.down)))
    while next <= now { next = next.advanced(by: period) }
    return next
}
