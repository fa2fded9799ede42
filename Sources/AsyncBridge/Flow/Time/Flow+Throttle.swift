extension Flow where Element: Sendable {
    /// Sends at most one value per `duration`: the first value at once, then, with
    /// `latest: true`, the latest value that came during the wait once it is over.
    ///
    /// Useful to tame a fast source (scroll positions, sensor readings, repeated taps) while
    /// still reacting to its first value at once.
    ///
    /// ```swift
    /// let positions = scrollOffsets.throttle(for: .milliseconds(100), clock: clock, latest: true)
    /// let taps = buttonTaps.throttle(for: .seconds(1), clock: clock, latest: false)   // ignore repeats
    /// ```
    ///
    /// A value that comes `duration` or more after the last one sent is sent at once. One that
    /// comes sooner waits, with `latest: true`, until `duration` after the last one sent,
    /// replacing any value that waited before it; with `latest: false` it is dropped. A value
    /// sent after a wait starts the next wait. So values come out at least `duration` apart.
    ///
    /// A value that comes at the very instant a wait ends is not too soon: it is sent at once,
    /// and the value that waited for that instant is dropped (RxSwift's and
    /// swift-async-algorithms' rule). So a source whose period divides `duration` has its
    /// newest value sent as each wait ends, not the value before it one wait late. This holds
    /// when the value (or a failure, below) is handled before the timer's task, woken for that
    /// same instant, has sent the waiting value; a value handled after it waits for the next
    /// end, a failure comes after the value sent. (On a `ManualClock`, the timer's task may run
    /// as soon as `advance(by:)` returns.)
    ///
    /// RxSwift's `throttle(_:latest:scheduler:)` behaves this way in both modes. Combine's
    /// `throttle(for:scheduler:latest:)` does not send the first value at once: it schedules
    /// it, and values that come before the scheduler runs it are coalesced, the latest of them
    /// sent with `latest: true` (OpenCombine's tests: 1, 2 and 3 sent together give 3 alone).
    /// With `latest: false` Combine sends the *first* value of each wait at its end instead of
    /// dropping it; we follow RxSwift, whose `latest: false` suits taps (the repeats are
    /// ignored, not postponed). When the flow finishes while a value waits, the value is still
    /// sent at the end of its wait, then the finish (both libraries), even when the finish comes
    /// at that very instant (RxSwift). A failure passes at once and drops the waiting value,
    /// even at the very instant its wait ends (RxSwift; Combine sends it after the waiting
    /// value, at the end of the wait).
    ///
    /// One timer task per subscription sends the waiting values. Cancelling drops the waiting
    /// value and ends the task.
    ///
    /// - Parameters:
    ///   - duration: The least time between two values sent, on `clock`. Zero waits for
    ///     nothing: every value is sent at once. Negative: a precondition failure (README,
    ///     "Durations and counts").
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
            // The handler's alone: when the last value was sent (or was due), the value waiting
            // for the end of the wait, and whether the finish waits behind it.
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
