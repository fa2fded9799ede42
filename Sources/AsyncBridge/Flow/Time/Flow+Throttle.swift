extension Flow where Element: Sendable {
    /// Sends at most one value per `duration`: the first value at once, then, with
    /// `latest: true`, the latest value that came during the wait once it is over.
    ///
    /// ```swift
    /// let taps = buttonTaps.throttle(for: .seconds(1), clock: clock, latest: false)   // ignore repeats
    /// ```
    ///
    /// RxSwift: `throttle(_:latest:scheduler:)`; Combine: `throttle(for:scheduler:latest:)`
    /// (which schedules the first value, and with `latest: false` sends each wait's first value).
    ///
    /// Values come out at least `duration` apart. A value that comes too soon waits (`latest:
    /// true`, replacing any waiting one) or is dropped; one at the very instant a wait ends is
    /// sent at once and the waiting value dropped. A finish comes after the waiting value; a
    /// failure passes at once and drops it. Cancelling drops the waiting value and ends the
    /// subscription's timer task.
    ///
    /// - Parameters:
    ///   - duration: The least time between two values sent, on `clock`; zero sends every value
    ///     at once; negative is a precondition failure.
    ///   - tolerance: The clock's leeway for each deadline.
    ///   - clock: The clock to measure with; `ManualClock` (AsyncBridgeTesting) in tests.
    ///   - latest: Whether a value that comes too soon waits to be sent (`true`) or is dropped.
    @inlinable
    public func throttle<C: Clock>(
        for duration: C.Duration,
        tolerance: C.Duration? = nil,
        clock: C = ContinuousClock(),
        latest: Bool
    ) -> Flow {
        checkDuration(duration, of: "throttle(for:)")
        checkTolerance(tolerance, of: "throttle(for:)")
        let upstream = self
        return Flow { subscriber in
            // The handler's alone.
            let state = SerialState(ThrottleState<Element, C.Instant>())
            let timed = TimedOperator(downstream: subscriber, clock: clock, tolerance: tolerance) { timed, input, now in
                // The waiting value goes out once its wait is over, before whatever comes later;
                // but at the very instant the wait ends (the tie) a value takes its place and a
                // failure drops it. A finish at the tie still comes after it.
                if let sent = state.value.lastSent, let value = state.value.waiting {
                    let end = sent.advanced(by: duration)
                    let isTie: Bool
                    switch input {
                    case .value, .completion(.failure): isTie = end == now
                    case .completion(.finished), .tick: isTie = false
                    }
                    if end <= now, !isTie {
                        state.value.waiting = nil
                        state.value.lastSent = end
                        guard timed.send(value) else { return }
                        if state.value.isFinishing { return timed.end(.finished) }
                    }
                }
                switch input {
                case .value(let value):
                    if let sent = state.value.lastSent, now < sent.advanced(by: duration) {
                        guard latest else { return }
                        if state.value.waiting == nil { timed.arm(sent.advanced(by: duration)) }
                        state.value.waiting = value
                    } else {
                        // Not too soon. At a tie a value still waits: this one replaces it.
                        state.value.waiting = nil
                        state.value.lastSent = now
                        _ = timed.send(value)
                    }
                case .completion(.finished):
                    if state.value.waiting == nil { return timed.end(.finished) }
                    state.value.isFinishing = true
                case .completion(.failure(let error)):
                    state.value.waiting = nil
                    timed.end(.failure(error))
                case .tick:
                    if state.value.waiting != nil, let sent = state.value.lastSent {
                        timed.arm(sent.advanced(by: duration))
                    } else {
                        timed.arm(nil)
                    }
                }
            }
            timed.subscribe(to: upstream)
        }
    }
}

/// What `throttle` remembers between events.
@usableFromInline
struct ThrottleState<Element: Sendable, Instant: InstantProtocol>: Sendable {
    /// When the last value was sent; a value sent at the end of a wait counts as sent when it
    /// was due, so the spacing does not depend on when the timer's task ran.
    @usableFromInline var lastSent: Instant?
    /// The value waiting for the end of the wait (`latest: true`).
    @usableFromInline var waiting: Element?
    /// The flow finished while a value waited: finish right after sending it.
    @usableFromInline var isFinishing = false

    @inlinable
    init() {}
}
