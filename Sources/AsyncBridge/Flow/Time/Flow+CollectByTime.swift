extension Flow {
    /// Sends the values in arrays: an array opens with its first value and is sent `timeSpan`
    /// later, or as soon as it holds `maxCount` values, whichever comes first.
    ///
    /// Useful to batch work that costs per call (analytics events, log lines, rows to insert):
    /// no value waits longer than `timeSpan`, and no call carries more than `maxCount`.
    ///
    /// ```swift
    /// events.collect(within: .seconds(5), maxCount: 50, clock: clock)
    ///     .subscribe(onValue: { batch in analytics.upload(batch) }, onCompletion: { _ in })
    ///     .store(in: bag)
    /// ```
    ///
    /// RxSwift and Combine disagree; the choices here, each pinned by a test:
    /// - **No empty arrays.** RxSwift's `buffer(timeSpan:count:scheduler:)` sends `[]` for each
    ///   time span without a value (its windows follow one another from subscription on, and
    ///   its finish sends the last one even when empty); Combine's `collect(.byTime…)` sends
    ///   nothing for an empty interval (as CombineX, whose tests run against Combine, skips an
    ///   empty buffer). We send no empty array: an array is work to do, and a flow with nothing
    ///   to send costs no wake-ups, because the timer sleeps only while an array is open.
    /// - **A full array restarts the time.** RxSwift starts a new window when an array is sent
    ///   for its count; Combine keeps to the intervals it started at subscription, so the array
    ///   after a full one may be sent almost at once. We go further than RxSwift: the time span
    ///   of an array starts with its first value, whatever sent the one before.
    /// - **At the finish** the open array is sent, then the finish (both libraries). **A
    ///   failure** passes at once and drops the open array (both libraries).
    ///
    /// A value that comes at the very instant an array's time is up opens the next array. One
    /// timer task per subscription sends the arrays whose time is up; cancelling drops the open
    /// array and ends the task.
    ///
    /// RxSwift: `buffer(timeSpan:count:scheduler:)`; Combine:
    /// `collect(.byTimeOrCount(scheduler, time, count))`, or `collect(.byTime(scheduler, time))`
    /// without `maxCount`.
    ///
    /// - Parameters:
    ///   - timeSpan: How long an array stays open after its first value, on `clock`. Zero keeps
    ///     none open: each value goes out in an array of its own. Negative: a precondition
    ///     failure (README, "Durations and counts").
    ///   - maxCount: The most values in one array; at least 1 (less: a precondition failure).
    ///     By default, no limit.
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
