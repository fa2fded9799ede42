extension Flow {
    /// Subscribes to this flow only once `duration` has passed: nothing runs before then, and
    /// what the flow sends afterwards passes unchanged.
    ///
    /// ```swift
    /// let suggestions = api.suggestions(for: query).delaySubscription(for: .milliseconds(300), clock: clock)
    /// ```
    ///
    /// RxSwift: `delaySubscription(_:scheduler:)`; Combine: none
    /// (`Just(()).delay(for:scheduler:).flatMap { _ in publisher }`).
    ///
    /// The subscription happens on the timer's task; cancelling before then subscribes nothing.
    ///
    /// - Parameters:
    ///   - duration: How long to wait before subscribing, on `clock`; zero subscribes during
    ///     `subscribe`; negative is a precondition failure.
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
            ) { timed, input, now in
                // Ticks come until the upstream is subscribed, then only its completion.
                if case .completion(let completion) = input { return timed.end(completion) }
                guard deadline <= now else { return timed.arm(deadline) }
                // Values do not go through the drain: they go straight to the subscriber (a
                // synchronous source stops when it cancels); the completion ends the timer and
                // the drain.
                upstream.run(FlowSubscriber(
                    subscription: timed.upstream,
                    receive: subscriber.stoppingAtCancellation.receive,
                    complete: timed.completer
                ))
            }
            timed.tick()  // arms the deadline, or subscribes at once if it is due
        }
    }
}
