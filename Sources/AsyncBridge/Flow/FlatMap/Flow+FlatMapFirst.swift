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
    /// `transform` is not called for an ignored value, and nothing is queued (use
    /// ``concatMap(_:)`` to keep every value). When the outer flow finishes, the running inner
    /// goes on, and the result finishes when it does; an inner's own completion is not
    /// forwarded. A failure of the outer flow or of the running inner fails the result and
    /// cancels the other; contain inner failures with ``asResult()`` to keep going. Cancelling,
    /// or a downstream that wants no more values, cancels the outer and the running inner.
    ///
    /// RxSwift: `flatMapFirst`; Combine has none. (`flatMap(maxPublishers: .max(1))` comes
    /// close only behind a subject, which drops what it is sent while the inner runs; a
    /// demand-aware upstream is held back instead, and its values come later.)
    @inlinable
    public func flatMapFirst<NewElement>(
        _ transform: @escaping @Sendable (Element) -> Flow<NewElement, Failure>
    ) -> Flow<NewElement, Failure> {
        flatMap(strategy: .first, transform)
    }
}
