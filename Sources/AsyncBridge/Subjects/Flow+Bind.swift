extension Flow where Failure == Never {
    /// Pushes every value of this flow into `relay`, until the returned token is cancelled.
    ///
    /// ```swift
    /// searchField.textChanges.bind(to: viewModel.queryRelay).store(in: bag)
    /// ```
    ///
    /// RxSwift: `bind(to:)` (RxRelay); Combine: `subscribe(_:)` with a subject, or `assign(to:)`.
    ///
    /// The flow's completion is not forwarded. The binding holds the relay until the token is
    /// cancelled; releasing the token does not cancel.
    @inlinable
    public func bind<Relay: FlowRelay>(to relay: Relay) -> CancellationToken where Relay.Element == Element {
        subscribe(onValue: { relay.accept($0) }, onCompletion: { _ in })
    }
}

extension Flow {
    /// Forwards every value of this flow into `subject`, then its completion (finishing or
    /// failing the subject), until the returned token is cancelled.
    ///
    /// ```swift
    /// uploadProgress.bind(to: progress).store(in: bag)
    /// ```
    ///
    /// RxSwift: `bind(to:)` / `subscribe(observer)`; Combine: `subscribe(_:)` with a subject.
    ///
    /// The binding holds the subject until the token is cancelled, which does not complete the
    /// subject; releasing the token does not cancel.
    @inlinable
    public func bind<Subject: FlowSubject>(to subject: Subject) -> CancellationToken
    where Subject.Element == Element, Subject.Failure == Failure {
        subscribe(
            onValue: { subject.send($0) },
            onCompletion: { completion in
                switch completion {
                case .finished: subject.finish()
                case .failure(let error): subject.fail(error)
                }
            }
        )
    }
}
