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
    /// - Each outer value cancels the running inner flow (its cancel action runs once), then
    ///   `transform` is called and the new inner subscribed. A value the old inner sends on
    ///   another thread during the switch arrives before it or is dropped, never after a value
    ///   of the new inner.
    /// - When the outer flow finishes, the running inner goes on, and the result finishes when
    ///   it does; an inner's own completion is not forwarded.
    /// - A failure of the outer flow or of the running inner fails the result and cancels the
    ///   other; a failure from a replaced inner is ignored. Contain inner failures with
    ///   ``asResult()`` to keep going.
    /// - Cancelling, or a downstream that wants no more values, cancels the outer and the
    ///   running inner flow.
    ///
    /// RxSwift: `flatMapLatest`; Combine: `map(_:).switchToLatest()`.
    @inlinable
    public func flatMapLatest<NewElement>(
        _ transform: @escaping @Sendable (Element) -> Flow<NewElement, Failure>
    ) -> Flow<NewElement, Failure> {
        flatMap(strategy: .latest, transform)
    }
}
