extension Flow where Element: Sendable {
    /// A flow of one value: the async closure's result, then finished; or its failure. Each
    /// subscription runs the closure in a new task; cancelling the subscription cancels it.
    ///
    /// ```swift
    /// let profile = Flow { try await client.profile(id: 42) }   // Flow<Profile, any Error>
    /// ```
    ///
    /// RxSwift: `Single.create` with a `Task` inside; Combine: `Deferred { Future { … Task { … } } }`.
    ///
    /// The failure type is the closure's; write `throws(APIError)` to keep it typed.
    @inlinable
    public init(_ operation: @escaping @Sendable () async throws(Failure) -> Element) {
        self = .deferred { Flow(SharedFuture(operation)) }
    }
}
