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
    /// RxSwift's `throttle(_:latest:scheduler:)` behaves this way in both modes. Combine's
    /// `throttle(for:scheduler:latest:)` agrees for `latest: true`, but with `latest: false`
    /// sends the *first* value of each wait at its end instead of dropping it; we follow
    /// RxSwift, whose `latest: false` suits taps (the repeats are ignored, not postponed).
    /// When the flow finishes while a value waits, the value is still sent at the end of its
    /// wait, then the finish (both libraries). A failure passes at once and drops the waiting
    /// value (RxSwift; Combine sends it after the waiting value).
    ///
    /// One timer task per subscription sends the waiting values. Cancelling drops the waiting
    /// value and ends the task.
    ///
    /// - Parameters:
    ///   - duration: The least time between two values sent, on `clock`.
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
        let upstream = self
        return Flow { subscriber in
            // The handler's alone: when the last value was sent (or was due), the value waiting
            // for the end of the wait, and whether the finish waits behind it.
            let state = SerialState(ThrottleState<Element, C.Instant>())
            let timed = TimedOperator(downstream: subscriber, clock: clock, tolerance: tolerance) { timed, input, now in
                if let sent = state.value.lastSent, let value = state.value.waiting, sent.advanced(by: duration) <= now {
                    state.value.waiting = nil
                    state.value.lastSent = sent.advanced(by: duration)
                    guard timed.send(value) else { return }
                    if state.value.isFinishing { return timed.end(.finished) }
                }
                switch input {
                case .value(let value):
                    if let sent = state.value.lastSent, now < sent.advanced(by: duration) {
                        guard latest else { return }
                        if state.value.waiting == nil { timed.arm(sent.advanced(by: duration)) }
                        state.value.waiting = value
                    } else {
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
