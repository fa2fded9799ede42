import Dispatch

extension SharedFuture {
    /// Hands the result to a completion block: the bridge for callers that are not async.
    ///
    /// ```swift
    /// SharedFuture { try await self.getUser(id: id) }.subscribe(deliveringOn: .main, completion)
    /// ```
    ///
    /// RxSwift: `Single.subscribe(_:)`; Combine: `sink(receiveCompletion:receiveValue:)`.
    ///
    /// Starts the operation if nobody has yet. `completion` is called **exactly once**: with the
    /// result (`Failure`, or ``AsyncBridgeError``), or with `CancellationError` when the returned
    /// token is cancelled first; releasing the token does not cancel. It runs on `queue`, or, when
    /// that is `nil`, on the thread that completed the operation or cancelled the token, possibly
    /// synchronously inside this call.
    @discardableResult
    public func subscribe(
        deliveringOn queue: DispatchQueue? = nil,
        _ completion: @escaping @Sendable (Result<Success, any Error>) -> Void
    ) -> CancellationToken {
        let deliver: @Sendable (FutureOutcome<Success, Failure>?) -> Void = { outcome in
            let result: Result<Success, any Error> = switch outcome {
            case .success(let value): .success(value)
            case .failure(let error): .failure(error)
            case .broken(let error): .failure(error)
            case nil: .failure(CancellationError())
            }
            if let queue {
                queue.async { completion(result) }
            } else {
                completion(result)
            }
        }
        guard let id = subscribe(deliver) else { return CancellationToken {} }
        return CancellationToken { [self] in remove(id) }
    }
}
