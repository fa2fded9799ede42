extension Flow {
    /// Maps a value to an inner flow and ignores the values that arrive while it runs: the
    /// next inner flow starts only with the first value after the running one finished.
    ///
    /// Useful when repeated triggers must not start overlapping work: a login button tapped
    /// twice, a pull-to-refresh pulled while a refresh is running.
    ///
    /// ```swift
    /// let sessions = loginTaps.flatMapFirst { _ in api.logIn(credentials) }
    /// ```
    ///
    /// - **Ignoring.** `transform` is not called for an ignored value; nothing is queued (use
    ///   ``concatMap(_:)`` to keep every value).
    /// - **Completion.** When the outer flow finishes, the running inner flow, if any, goes on;
    ///   the result finishes when it does (as RxSwift). An inner's own completion is not
    ///   forwarded.
    /// - **Failure.** A failure of the outer flow or of the running inner fails the result and
    ///   cancels the other (as RxSwift). Contain inner failures with ``asResult()`` to keep
    ///   going.
    /// - **Cancellation.** Cancelling the subscription, or a downstream that wants no more
    ///   values, cancels the outer and the running inner flow.
    ///
    /// RxSwift: `flatMapFirst`; Combine has none. (`flatMap(maxPublishers: .max(1))` comes
    /// close only behind a subject, which drops what it is sent while the inner runs; a
    /// demand-aware upstream is held back instead, and its values come later.)
    ///
    /// - Parameter transform: Makes the inner flow for an accepted value.
    /// - Returns: The values of the inner flows, which never overlap.
    @inlinable
    public func flatMapFirst<NewElement>(
        _ transform: @escaping @Sendable (Element) -> Flow<NewElement, Failure>
    ) -> Flow<NewElement, Failure> {
        flatMap(strategy: .first, transform)
    }
}
