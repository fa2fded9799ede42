extension Flow where Element: Sendable {
    /// Sends a value only once `duration` has passed without a newer one: the last value of
    /// each burst, after the burst.
    ///
    /// ```swift
    /// let queries = searchText.debounce(for: .milliseconds(300), clock: clock)
    /// ```
    ///
    /// RxSwift: `debounce(_:scheduler:)`; Combine: `debounce(for:scheduler:)` (which drops the
    /// waiting value at the finish).
    ///
    /// At the finish the waiting value is sent at once, then the finish; a failure passes at
    /// once and drops it. Values are sent from the subscription's one timer task; cancelling
    /// drops the waiting value and ends it.
    ///
    /// - Parameters:
    ///   - duration: The quiet time that lets a value through, on `clock`; zero waits for
    ///     nothing; negative is a precondition failure.
    ///   - tolerance: The clock's leeway for each deadline.
    ///   - clock: The clock to measure with; `ManualClock` (AsyncBridgeTesting) in tests.
    @inlinable
    public func debounce<C: Clock>(
        for duration: C.Duration,
        tolerance: C.Duration? = nil,
        clock: C = ContinuousClock()
    ) -> Flow {
        checkDuration(duration, of: "debounce(for:)")
        checkTolerance(tolerance, of: "debounce(for:)")
        let upstream = self
        return Flow { subscriber in
            // The latest value and when it is due; the handler's alone.
            let waiting = SerialState<(value: Element, deadline: C.Instant)?>(nil)
            let timed = TimedOperator(downstream: subscriber, clock: clock, tolerance: tolerance) { timed, input, now in
                if let due = waiting.value, due.deadline <= now {
                    waiting.value = nil
                    guard timed.send(due.value) else { return }
                }
                switch input {
                case .value(let value):
                    let deadline = now.advanced(by: duration)
                    waiting.value = (value, deadline)
                    timed.arm(deadline)
                case .completion(.finished):
                    if let last = waiting.value {
                        waiting.value = nil
                        guard timed.send(last.value) else { return }
                    }
                    timed.end(.finished)
                case .completion(.failure(let error)):
                    waiting.value = nil
                    timed.end(.failure(error))
                case .tick:
                    timed.arm(waiting.value?.deadline)
                }
            }
            timed.subscribe(to: upstream)
        }
    }
}
