extension Flow where Element: Sendable {
    /// A flow of one value: the async closure's result, then finished; or its failure. Each
    /// subscription runs the closure in a new task; cancelling the subscription cancels it.
    ///
    /// The failure type is the closure's, as for `SharedFuture { … }`: a closure
    /// that does not throw makes a `Flow<User, Never>`, one declared `throws(APIError)` a
    /// `Flow<User, APIError>`, and Swift infers an untyped `throws` (`any Error`) for a
    /// closure that does not spell it out. A closure without parameters always means this
    /// initialiser; the completion-block ones (`Flow { api.getUser(id: 42, completion: $0) }`)
    /// take the block as their one parameter.
    ///
    /// RxSwift: `Single.create` with a `Task` inside; Combine:
    /// `Deferred { Future { promise in Task { … } } }`.
    ///
    /// ```swift
    /// let profile = Flow { try await client.profile(id: 42) }               // Flow<Profile, any Error>
    /// let user = Flow { () async throws(APIError) -> User in try await api.user(id: 42) }
    /// ```
    @inlinable
    public init(_ operation: @escaping @Sendable () async throws(Failure) -> Element) {
        self = .deferred { Flow(SharedFuture(operation)) }
    }
}
