extension Flow {
    /// Turns the flow's failure into a value: each value arrives as `.success`, and a failure
    /// arrives as one `.failure` value, followed by finished. The result never fails.
    ///
    /// Useful to contain a failure inside a `flatMap`'s inner flow, so that one failing request
    /// does not end the whole stream:
    ///
    /// ```swift
    /// let responses = requests.flatMap { request in api.fetch(request).asResult() }
    /// // Flow<Result<Response, APIError>, Never>: a failed request is one .failure value
    /// ```
    ///
    /// Apply it inside the `flatMap`, not after it (see <doc:Results>). Cancelling the result
    /// cancels the flow; finishing passes through.
    ///
    /// RxSwift: `materialize()` (which yields `Event`s, completion included); Combine:
    /// `map { .success($0) }.catch { Just(.failure($0)) }`.
    @inlinable
    public func asResult() -> Flow<Result<Element, Failure>, Never> {
        let upstream = self
        return Flow<Result<Element, Failure>, Never> { subscriber in
            let receive = subscriber.receive
            let complete = subscriber.complete
            upstream.run(FlowSubscriber(
                subscription: subscriber.subscription,
                receive: { receive(.success($0)) },
                complete: { completion in
                    switch completion {
                    case .finished:
                        complete(.finished)
                    case .failure(let error):
                        if receive(.failure(error)) == .more { complete(.finished) }
                    }
                }
            ))
        }
    }
}
