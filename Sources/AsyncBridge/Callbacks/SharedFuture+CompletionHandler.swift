import Dispatch

extension SharedFuture {
    /// Hands the result to a completion block: the bridge for callers that are not async.
    ///
    /// Starts the operation if nobody has yet. `completion` is called **exactly once**: with
    /// the result, or with `.failure(CancellationError())` when the returned token is
    /// cancelled first (the operation's cancel action runs if no other consumer is waiting).
    /// The failure is the future's `Failure`, `CancellationError` or ``AsyncBridgeError``.
    ///
    /// - Parameters:
    ///   - queue: Where `completion` runs. `nil` calls it on the thread that completed the
    ///     operation or cancelled the token, possibly synchronously inside this call.
    ///   - completion: Called once with the outcome.
    /// - Returns: A token that cancels this subscription. Releasing it does not cancel.
    ///
    /// Unlike `Flow`'s `subscribe` methods, the token may be discarded: this subscription ends
    /// by itself once `completion` has been called, releasing everything it held, so a
    /// dropped token leaks nothing (and the old callers this bridges to rarely cancel).
    ///
    /// An async function exposed to old callers is one line:
    ///
    /// ```swift
    /// @discardableResult
    /// func getUser(id: Int, completion: @escaping @Sendable (Result<User, any Error>) -> Void) -> CancellationToken {
    ///     SharedFuture { try await self.getUser(id: id) }.subscribe(deliveringOn: .main, completion)
    /// }
    /// ```
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
