extension SharedFuture {
    /// A future that is already finished with `result`: consumers get it at once.
    ///
    /// ```swift
    /// let cached = SharedFuture<User, APIError>(.success(user))
    /// ```
    @inlinable
    public init(_ result: Result<Success, Failure>) {
        self.init(outcome: FutureOutcome(result))
    }
}
