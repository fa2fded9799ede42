extension Flow where Element: Sendable {
    /// Sends each value `duration` after it arrived, and the finish `duration` after it came;
    /// a failure passes at once.
    ///
    /// ```swift
    /// let toast = messages.delay(for: .seconds(2), clock: clock)
    /// ```
    ///
    /// RxSwift: `delay(_:scheduler:)`; Combine: `delay(for:scheduler:)` (which delays failures too).
    ///
    /// The spacing is kept; events are sent from the subscription's timer task. A failure drops
    /// the waiting values. Cancelling drops the waiting events and ends the task.
    ///
    /// - Parameters:
    ///   - duration: How long to hold each event, on `clock`; zero sends them as soon as the
    ///     timer's task runs; negative is a precondition failure.
    ///   - tolerance: The clock's leeway for each deadline.
    ///   - clock: The clock to measure with; `ManualClock` (AsyncBridgeTesting) in tests.
    @inlinable
    public func delay<C: Clock>(
        for duration: C.Duration,
        tolerance: C.Duration? = nil,
        clock: C = ContinuousClock()
    ) -> Flow {
        checkDuration(duration, of: "delay(for:)")
        checkTolerance(tolerance, of: "delay(for:)")
        let upstream = self
        return Flow { subscriber in
            // Events waiting for their time, oldest (and earliest) first, each with the instant
            // it is due; values are `.some`, the finish `nil`. The handler's alone.
            let waiting = SerialState(RingBuffer<(deadline: C.Instant, value: Element?)>())
            let timed = TimedOperator(downstream: subscriber, clock: clock, tolerance: tolerance) { timed, input, now in
                let earliest = waiting.value.first?.deadline
                while let deadline = waiting.value.first?.deadline, deadline <= now {
                    switch waiting.value.removeFirst().value {
                    case .some(let value): guard timed.send(value) else { return }
                    case .none: return timed.end(.finished)
                    }
                }
                switch input {
                case .value(let value):
                    waiting.value.append((now.advanced(by: duration), value))
                case .completion(.finished):
                    waiting.value.append((now.advanced(by: duration), nil))
                case .completion(.failure(let error)):
                    waiting.value = RingBuffer()
                    return timed.end(.failure(error))
                case .tick:
                    return timed.arm(waiting.value.first?.deadline)
                }
                // The timer already waits for the earliest event if it has not changed.
                let next = waiting.value.first?.deadline
                if next != earliest { timed.arm(next) }
            }
            timed.subscribe(to: upstream)
        }
    }
}
