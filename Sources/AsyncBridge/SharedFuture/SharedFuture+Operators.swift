extension SharedFuture {
    /// Transforms the success value; lazy like this one, and cancelling it leaves this future
    /// as any consumer does.
    ///
    /// RxSwift: `Single.map`; Combine: `map`.
    ///
    /// ```swift
    /// let name: SharedFuture<String, APIError> = user.map { $0.name }
    /// ```
    @inlinable
    public func map<NewSuccess: Sendable>(
        _ transform: @escaping @Sendable (Success) -> NewSuccess
    ) -> SharedFuture<NewSuccess, Failure> {
        then { outcome in
            switch outcome {
            case .success(let value): return .outcome(.success(transform(value)))
            case .failure(let error): return .outcome(.failure(error))
            case .broken(let error): return .outcome(.broken(error))
            }
        }
    }

    /// Starts another future with the success value, and finishes with its result.
    ///
    /// RxSwift: `Single.flatMap`; Combine: `flatMap`.
    ///
    /// ```swift
    /// let group = user.flatMap { user in SharedFuture { api.getGroup(id: user.groupID, completion: $0) } }
    /// ```
    @inlinable
    public func flatMap<NewSuccess: Sendable>(
        _ transform: @escaping @Sendable (Success) -> SharedFuture<NewSuccess, Failure>
    ) -> SharedFuture<NewSuccess, Failure> {
        then { outcome in
            switch outcome {
            case .success(let value): return .future(transform(value))
            case .failure(let error): return .outcome(.failure(error))
            case .broken(let error): return .outcome(.broken(error))
            }
        }
    }

    /// Transforms the failure.
    ///
    /// ```swift
    /// let user: SharedFuture<User, AppError> = request.mapError { AppError.network($0) }
    /// ```
    @inlinable
    public func mapError<NewFailure: Error>(
        _ transform: @escaping @Sendable (Failure) -> NewFailure
    ) -> SharedFuture<Success, NewFailure> {
        then { outcome in
            switch outcome {
            case .success(let value): return .outcome(.success(value))
            case .failure(let error): return .outcome(.failure(transform(error)))
            case .broken(let error): return .outcome(.broken(error))
            }
        }
    }

    /// Replaces a failure with the result of another future.
    ///
    /// A broken contract (``AsyncBridgeError``) is not a `Failure` and is passed through.
    ///
    /// RxSwift: `catch`; Combine: `catch`.
    ///
    /// ```swift
    /// let user = remote.catch { _ in cache.user }   // SharedFuture<User, Never>
    /// ```
    @inlinable
    public func `catch`<NewFailure: Error>(
        _ handler: @escaping @Sendable (Failure) -> SharedFuture<Success, NewFailure>
    ) -> SharedFuture<Success, NewFailure> {
        then { outcome in
            switch outcome {
            case .success(let value): return .outcome(.success(value))
            case .failure(let error): return .future(handler(error))
            case .broken(let error): return .outcome(.broken(error))
            }
        }
    }

    /// Replaces a failure with a value, so the result can no longer fail.
    ///
    /// RxSwift: `catchAndReturn`; Combine: `replaceError(with:)`.
    ///
    /// ```swift
    /// let avatar: SharedFuture<Image, Never> = download.replaceError(with: .placeholder)
    /// ```
    @inlinable
    public func replaceError(with value: Success) -> SharedFuture<Success, Never> {
        then { outcome in
            switch outcome {
            case .success(let value): return .outcome(.success(value))
            case .failure: return .outcome(.success(value))
            case .broken(let error): return .outcome(.broken(error))
            }
        }
    }
}

/// What a chained future does with its upstream's outcome.
@usableFromInline
enum FutureStep<Success: Sendable, Failure: Error>: Sendable {
    case outcome(FutureOutcome<Success, Failure>)
    case future(SharedFuture<Success, Failure>)
}

extension SharedFuture {
    /// The one chaining primitive behind the operators: subscribe to this future, then finish
    /// with an outcome or with another future's outcome. Cancelling the chained run cancels
    /// whichever of the two is still pending.
    @inlinable
    func then<NewSuccess, NewFailure>(
        _ next: @escaping @Sendable (FutureOutcome<Success, Failure>) -> FutureStep<NewSuccess, NewFailure>
    ) -> SharedFuture<NewSuccess, NewFailure> {
        let upstream = self
        return SharedFuture<NewSuccess, NewFailure>(work: { completer in
            // The inner future's cancel action, once there is one; closed when cancelled.
            let inner = ClosableSlot<CancelAction>()
            let upstreamID = upstream.subscribe { outcome in
                guard let outcome else { return }  // this chained run was cancelled
                switch next(outcome) {
                case .outcome(let outcome):
                    completer.complete(outcome)
                case .future(let future):
                    guard let innerID = future.subscribe({ outcome in
                        if let outcome { completer.complete(outcome) }
                    }) else { return }
                    let cancelInner: CancelAction = { future.remove(innerID) }
                    if inner.fill(cancelInner) == nil { cancelInner() }  // cancelled meanwhile
                }
            }
            return {
                if let upstreamID { upstream.remove(upstreamID) }
                inner.close()??()
            }
        })
    }
}
