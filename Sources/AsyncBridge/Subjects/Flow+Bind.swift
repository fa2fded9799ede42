extension Flow where Failure == Never {
    /// Pushes every value of this flow into `relay`, until the returned token is cancelled.
    ///
    /// A relay cannot end, so when this flow finishes the relay simply hears no more from it.
    /// The binding holds the relay (as RxSwift's and Combine's do); cancel the token, or store
    /// it in the owner's bag, to let go. Releasing the token does not cancel, so the result is
    /// not discardable (as with `subscribe`, a forgotten `.store(in: bag)` is a warning).
    ///
    /// RxSwift: `bind(to:)` (RxRelay); Combine: `subscribe(_:)` with a subject, or
    /// `assign(to:)`.
    ///
    /// ```swift
    /// searchField.textChanges.bind(to: viewModel.queryRelay).store(in: bag)
    /// toggle.userChanges.bind(to: notificationsRelay.view).store(in: bag)
    /// ```
    @inlinable
    public func bind<Relay: FlowRelay>(to relay: Relay) -> CancellationToken where Relay.Element == Element {
        subscribe(onValue: { relay.accept($0) }, onCompletion: { _ in })
    }
}

extension Flow {
    /// Forwards every value of this flow into `subject`, then its completion (finishing or
    /// failing the subject), until the returned token is cancelled.
    ///
    /// The binding holds the subject (as RxSwift's and Combine's do); cancel the token, or
    /// store it in the owner's bag, to let go. Cancelling does not complete the subject.
    /// Releasing the token does not cancel, so the result is not discardable.
    ///
    /// RxSwift: `bind(to:)` / `subscribe(observer)`; Combine: `subscribe(_:)` with a subject.
    ///
    /// ```swift
    /// let progress = LiveSubject<Double, any Error>()
    /// uploadProgress.bind(to: progress).store(in: bag)
    /// ```
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
