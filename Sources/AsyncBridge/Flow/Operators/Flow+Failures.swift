extension Flow where Failure == Never {
    /// The same flow, typed as able to fail, to meet a flow that can.
    ///
    /// Combine: `setFailureType(to:)`; RxSwift has untyped errors.
    ///
    /// ```swift
    /// let merged = taps.setFailureType(to: APIError.self).flatMap { _ in request }
    /// ```
    @inlinable
    public func setFailureType<NewFailure: Error>(to failureType: NewFailure.Type) -> Flow<Element, NewFailure> {
        let upstream = self
        return Flow<Element, NewFailure> { subscriber in
            let complete = subscriber.complete
            upstream.run(FlowSubscriber(
                subscription: subscriber.subscription,
                receive: subscriber.receive,
                complete: { _ in complete(.finished) }
            ))
        }
    }
}

extension Flow {
    /// Transforms the failure.
    ///
    /// Combine: `mapError(_:)`; RxSwift has untyped errors (`catch` + rethrow).
    ///
    /// ```swift
    /// let users = request.mapError { AppError.network($0) }
    /// ```
    @inlinable
    public func mapError<NewFailure: Error>(_ transform: @escaping @Sendable (Failure) -> NewFailure) -> Flow<Element, NewFailure> {
        let upstream = self
        return Flow<Element, NewFailure> { subscriber in
            let complete = subscriber.complete
            upstream.run(FlowSubscriber(
                subscription: subscriber.subscription,
                receive: subscriber.receive,
                complete: { completion in
                    switch completion {
                    case .finished: complete(.finished)
                    case .failure(let error): complete(.failure(transform(error)))
                    }
                }
            ))
        }
    }

    /// On failure, continues with the flow `handler` returns instead.
    ///
    /// RxSwift: `catch(_:)`; Combine: `catch(_:)`.
    ///
    /// ```swift
    /// let users = remote.catch { _ in cache.users }   // Flow<[User], Never>
    /// ```
    @inlinable
    public func `catch`<NewFailure: Error>(
        _ handler: @escaping @Sendable (Failure) -> Flow<Element, NewFailure>
    ) -> Flow<Element, NewFailure> {
        let upstream = self
        return Flow<Element, NewFailure> { subscriber in
            let complete = subscriber.complete
            upstream.run(FlowSubscriber(
                subscription: subscriber.subscription.child(),
                receive: subscriber.receive,
                complete: { completion in
                    switch completion {
                    case .finished: complete(.finished)
                    case .failure(let error): handler(error).run(subscriber)
                    }
                }
            ))
        }
    }

    /// On failure, sends `value` and finishes, so the flow can no longer fail.
    ///
    /// RxSwift: `catchAndReturn(_:)`; Combine: `replaceError(with:)`.
    ///
    /// ```swift
    /// let avatar = download.replaceError(with: .placeholder)
    /// ```
    @inlinable
    public func replaceError(with value: Element) -> Flow<Element, Never> where Element: Sendable {
        self.catch { _ in .just(value) }
    }
}
