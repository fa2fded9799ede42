extension Future {
    /// A future whose operation is an async closure, run in a new task when the first consumer
    /// arrives. Cancelling the last consumer cancels that task.
    ///
    /// The typed failure is kept: a closure that `throws(APIError)` makes a
    /// `Future<User, APIError>`; one that does not throw makes a `Future<User, Never>`.
    ///
    /// ```swift
    /// let profile = Future { try await client.profile(id: 42) }   // Future<Profile, any Error>
    /// ```
    @inlinable
    public init(_ operation: @escaping @Sendable () async throws(Failure) -> Success) {
        self.init(work: { completer in
            let task = Task { completer.resolve(await Result(catching: operation)) }
            return { task.cancel() }
        })
    }
}
