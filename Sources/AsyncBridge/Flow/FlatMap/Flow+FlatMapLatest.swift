extension Flow {
    /// Maps each value to an inner flow and keeps only the latest: a new value cancels the
    /// running inner flow, then starts its own.
    ///
    /// Useful when only the answer to the newest question matters: search-as-you-type, the
    /// details of the currently selected item, a user's group after the user changed.
    ///
    /// ```swift
    /// let results = queries.flatMapLatest { query in api.search(query) }
    /// ```
    ///
    /// - **Switching.** For each outer value, the running inner flow is cancelled (its cancel
    ///   action runs once), then `transform` is called and the new inner flow subscribed.
    ///   From then on, downstream sees only the new inner's values: a value the old inner sent
    ///   on another thread at the moment of the switch either arrives before the switch or is
    ///   dropped, never after a value of the new inner.
    /// - **Completion.** When the outer flow finishes, the running inner flow, if any, goes on;
    ///   the result finishes when it does (RxSwift and Combine agree). An inner's own completion
    ///   is not forwarded.
    /// - **Failure.** A failure of the outer flow or of the running inner fails the result and
    ///   cancels the other (RxSwift and Combine agree). A replaced inner has been cancelled, so
    ///   a failure it was already sending is ignored. Contain inner failures with
    ///   ``asResult()`` to keep going.
    /// - **Cancellation.** Cancelling the subscription, or a downstream that wants no more
    ///   values, cancels the outer and the running inner flow.
    ///
    /// RxSwift: `flatMapLatest`; Combine: `map(_:).switchToLatest()`.
    ///
    /// - Parameter transform: Makes the inner flow for a value.
    /// - Returns: The values of the latest inner flow.
    @inlinable
    public func flatMapLatest<NewElement>(
        _ transform: @escaping @Sendable (Element) -> Flow<NewElement, Failure>
    ) -> Flow<NewElement, Failure> {
        flatMap(strategy: .latest, transform)
    }
}
