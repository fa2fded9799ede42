extension SharedFuture {
    /// A future whose operation is an async closure, run in a new task when the first consumer
    /// arrives. Cancelling the last consumer cancels that task.
    ///
    /// The failure type is the closure's (`Never` if it does not throw); Swift infers an untyped
    /// `throws` unless `throws(APIError)` is spelled out, as below.
    ///
    /// ```swift
    /// let profile = SharedFuture { try await client.profile(id: 42) }   // SharedFuture<Profile, any Error>
    /// let user = SharedFuture { () async throws(APIError) -> User in try await api.user(id: 42) }
    /// ```
    @inlinable
    public init(_ operation: @escaping @Sendable () async throws(Failure) -> Success) {
        self.init(work: { completer in
            let task = Task { completer.resolve(await Result(catching: operation)) }
            return { task.cancel() }
        })
    }
}
