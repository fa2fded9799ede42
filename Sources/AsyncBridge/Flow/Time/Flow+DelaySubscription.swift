extension Flow {
    /// Subscribes to this flow only once `duration` has passed: nothing runs before then, and
    /// what the flow sends afterwards passes unchanged.
    ///
    /// Useful to start work a little later (a request after a screen's transition, a retry
    /// after a pause) without delaying each of its values as ``delay(for:tolerance:clock:)``
    /// does.
    ///
    /// ```swift
    /// let suggestions = api.suggestions(for: query).delaySubscription(for: .milliseconds(300), clock: clock)
    /// ```
    ///
    /// Cancelling before `duration` has passed subscribes nothing and ends the timer's task at
    /// once. The subscription happens on the timer's task (or during `subscribe`, for a
    /// duration of zero). Values then go straight from this flow to the subscriber, with only a
    /// check per value that it has not cancelled (from its handler, say: a synchronous source
    /// then stops at once).
    ///
    /// RxSwift: `delaySubscription(_:scheduler:)`. Combine: none; Combine code writes
    /// `Just(()).delay(for:scheduler:).flatMap { _ in publisher }` (`subscribe(on:)` only
    /// moves the subscription to a scheduler, without waiting, and `delay` delays the values).
    ///
    /// - Parameters:
    ///   - duration: How long to wait before subscribing, on `clock`. Zero subscribes during
    ///     `subscribe`. Negative: a precondition failure (README, "Durations and counts").
    ///   - tolerance: The clock's leeway for the deadline.
    ///   - clock: The clock to measure with; `ManualClock` (AsyncBridgeTesting) in tests.
    @inlinable
    public func delaySubscription<C: Clock>(
        for duration: C.Duration,
        tolerance: C.Duration? = nil,
        clock: C = ContinuousClock()
    ) -> Flow {
        checkDuration(duration, of: "delaySubscription(for:)")
        checkTolerance(tolerance, of: "delaySubscription(for:)")
        let upstream = self
        return Flow { subscriber in
            let deadline = clock.now.advanced(by: duration)
            let timed = TimedOperator(
                downstream: subscriber, receiving: Never.self, clock: clock, tolerance: tolerance
            ) { timed, _, now in
                // Only ticks come until the upstream is subscribed, and none after.
                guard deadline <= now else { return timed.arm(deadline) }
                // Not through the drain: the upstream's events go to the subscriber as they come
                // (a synchronous source runs here, inside this tick, and stops when the subscriber
                // wants no more, or cancelled from its handler: the token exists by now). Its
                // completion ends the timer and the drain.
                upstream.run(FlowSubscriber(
                    subscription: timed.upstream,
                    receive: subscriber.stoppingAtCancellation.receive,
                    complete: { timed.end($0) }
                ))
            }
            timed.tick()  // arms the deadline, or subscribes at once if it is due
        }
    }
}
