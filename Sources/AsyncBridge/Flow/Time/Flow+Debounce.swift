extension Flow where Element: Sendable {
    /// Sends a value only once `duration` has passed without a newer one: the last value of
    /// each burst, after the burst.
    ///
    /// Useful for search-as-you-type: query once the user stops typing, not on every key.
    ///
    /// ```swift
    /// let queries = searchText.debounce(for: .milliseconds(300), clock: clock)
    ///     .flatMapLatest { text in api.search(text) }
    /// ```
    ///
    /// When the flow finishes while a value waits, the value is sent at once, then the finish
    /// (RxSwift's `debounce(_:scheduler:)` and swift-async-algorithms' `debounce` do the same;
    /// Combine's `debounce(for:scheduler:)` drops it, as OpenCombine reproduces). A failure
    /// passes at once and drops the waiting value (both libraries). A value that arrives at
    /// the very instant the wait ends comes after the waiting value, which is sent.
    ///
    /// Each value moves the deadline of the subscription's one timer task (which sleeps on until
    /// the latest deadline): no task or cancellation per value. The value is sent from that
    /// task. Cancelling drops the waiting value and ends the task.
    ///
    /// - Parameters:
    ///   - duration: The quiet time that lets a value through, on `clock`. Zero waits for
    ///     nothing: every value is sent, from the timer's task or as the next one arrives.
    ///     Negative: a precondition failure (README, "Durations and counts").
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
