extension Future {
    /// A future that is already finished with `result`: consumers get it at once.
    ///
    /// ```swift
    /// let cached = Future<User, APIError>(.success(user))
    /// ```
    @inlinable
    public init(_ result: Result<Success, Failure>) {
        self.init(outcome: FutureOutcome(result))
    }
}
