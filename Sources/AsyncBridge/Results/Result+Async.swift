extension Result {
    /// Captures the outcome of an async throwing closure, keeping its typed failure.
    ///
    /// The async twin of the standard library's `Result(catching:)`.
    ///
    /// ```swift
    /// let user: Result<User, APIError> = await Result { () async throws(APIError) in
    ///     try await api.user(id: 42)
    /// }
    /// ```
    @inlinable
    public init(catching body: () async throws(Failure) -> Success) async {
        do throws(Failure) {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
