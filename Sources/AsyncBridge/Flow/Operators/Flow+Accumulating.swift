extension Flow {
    /// Sends each running result of `accumulate`, starting from `initial`.
    ///
    /// RxSwift: `scan(_:accumulator:)`; Combine: `scan(_:_:)`.
    ///
    /// ```swift
    /// let totals = amounts.scan(0, +)
    /// ```
    @inlinable
    public func scan<Result: Sendable>(
        _ initial: Result,
        _ accumulate: @escaping @Sendable (Result, Element) -> Result
    ) -> Flow<Result, Failure> {
        let upstream = self
        return Flow<Result, Failure> { subscriber in
            let accumulated = SerialState(initial)
            let receive = subscriber.receive
            upstream.run(FlowSubscriber(
                subscription: subscriber.subscription,
                receive: { value in
                    accumulated.value = accumulate(accumulated.value, value)
                    return receive(accumulated.value)
                },
                complete: subscriber.complete
            ))
        }
    }

    /// Sends `values` first, then this flow's.
    ///
    /// RxSwift: `startWith(_:)`; Combine: `prepend(_:)`.
    ///
    /// ```swift
    /// let state = updates.prepend(.loading)
    /// ```
    @inlinable
    public func prepend(_ values: Element...) -> Flow where Element: Sendable {
        let upstream = self
        return Flow { subscriber in
            let cancelled = subscriber.subscription.cancellationFlag()
            for value in values where cancelled.isRaised || subscriber.receive(value) == .stop { return }
            if cancelled.isRaised { return }
            upstream.run(subscriber)
        }
    }
}
