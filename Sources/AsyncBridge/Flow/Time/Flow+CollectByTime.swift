extension Flow {
    /// Sends the values in arrays: an array opens with its first value and is sent `timeSpan`
    /// later, or as soon as it holds `maxCount` values, whichever comes first.
    ///
    /// ```swift
    /// let batches = events.collect(within: .seconds(5), maxCount: 50, clock: clock)
    /// ```
    ///
    /// RxSwift: `buffer(timeSpan:count:scheduler:)`; Combine:
    /// `collect(.byTimeOrCount(scheduler, time, count))`.
    ///
    /// No empty array is ever sent; an array's time starts with its first value. At the finish
    /// the open array is sent, then the finish; a failure passes at once and drops it.
    /// Cancelling drops the open array and ends the subscription's timer task.
    ///
    /// - Parameters:
    ///   - timeSpan: How long an array stays open after its first value, on `clock`; zero sends
    ///     each value alone; negative is a precondition failure.
    ///   - maxCount: The most values in one array, at least 1; by default, no limit.
    ///   - tolerance: The clock's leeway for each deadline.
    ///   - clock: The clock to measure with; `ManualClock` (AsyncBridgeTesting) in tests.
    @inlinable
    public func collect<C: Clock>(
        within timeSpan: C.Duration,
        maxCount: Int = .max,
        tolerance: C.Duration? = nil,
        clock: C = ContinuousClock()
    ) -> Flow<[Element], Failure> {
        checkDuration(timeSpan, of: "collect(within:maxCount:)", named: "timeSpan")
        checkCount(maxCount, of: "collect(within:maxCount:)", named: "maxCount", atLeast: 1)
        checkTolerance(tolerance, of: "collect(within:maxCount:)")
        let upstream = self
        return Flow<[Element], Failure> { subscriber in
            // The open array, and when its time is up (`nil`: no array is open); the handler's alone.
            let batch = SerialState<[Element]>([])
            let deadline = SerialState<C.Instant?>(nil)
            let timed = TimedOperator(
                downstream: subscriber, receiving: Element.self, clock: clock, tolerance: tolerance
            ) { timed, input, now in
                // An array whose time is up goes out before whatever comes later.
                if let due = deadline.value, due <= now {
                    deadline.value = nil
                    guard timed.send(batch.take()) else { return }
                }
                switch input {
                case .value(let value):
                    batch.value.append(value)
                    if batch.value.count == maxCount {
                        if deadline.value != nil {
                            deadline.value = nil
                            timed.arm(nil)  // the timer's task wakes at the old deadline and waits
                        }
                        _ = timed.send(batch.take())
                    } else if deadline.value == nil {
                        deadline.value = now.advanced(by: timeSpan)
                        timed.arm(deadline.value)
                    }
                case .completion(.finished):
                    let last = batch.take()
                    if !last.isEmpty { guard timed.send(last) else { return } }
                    timed.end(.finished)
                case .completion(.failure(let error)):
                    batch.value = []
                    timed.end(.failure(error))
                case .tick:
                    timed.arm(deadline.value)
                }
            }
            timed.subscribe(to: upstream)
        }
    }
}
