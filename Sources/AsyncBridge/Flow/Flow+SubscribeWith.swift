extension Flow {
    /// Subscribes on behalf of `owner`, which is held weakly and handed to the handlers:
    /// no `[weak self]` and `guard let self` at the call site, and no way to forget them.
    ///
    /// The subscription never extends the owner's life. Once the owner is gone nothing more
    /// is delivered — neither values nor the completion — and at the first event after that
    /// the subscription cancels itself (releasing the source, and running its cancel action).
    /// To end it the moment the owner goes, also store the token in the owner's
    /// ``CancellationBag``.
    ///
    /// `owner` must be `Sendable`, because the handlers run on the thread the source emits on.
    /// Do not capture the owner strongly in the handlers: that would keep it alive.
    ///
    /// RxSwift: `subscribe(with:onNext:onError:onCompleted:)`; Combine has none (a `sink`
    /// whose closures capture `[weak self]`).
    ///
    /// ```swift
    /// final class ProfileViewModel: Sendable {
    ///     let bag = CancellationBag()
    ///     let nameRelay = LatestValueRelay(value: "")
    ///
    ///     init(user: Flow<User, Never>) {
    ///         user.subscribe(with: self) { viewModel, user in viewModel.nameRelay.accept(user.name) }
    ///             .store(in: bag)
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - owner: the object the subscription works for; held weakly.
    ///   - onValue: called with the owner and each value, while the owner lives.
    ///   - onCompletion: called with the owner and the completion, if the owner still lives.
    /// The completion handler may be left out: the required `owner` keeps a lone trailing
    /// closure (`flow.subscribe { … }`) from ever meaning this method. The token must be kept
    /// (releasing it does not cancel), so the result is not discardable: store it in the
    /// owner's bag, or write `_ =` for a subscription that may run until the owner is gone and
    /// the source emits again.
    ///
    /// - Returns: a token that cancels the subscription. Releasing it does not cancel.
    @inlinable
    public func subscribe<Owner: AnyObject & Sendable>(
        with owner: Owner,
        onValue: @escaping @Sendable (Owner, Element) -> Void,
        onCompletion: @escaping @Sendable (Owner, FlowCompletion<Failure>) -> Void = { _, _ in }
    ) -> CancellationToken {
        subscribe(
            FlowOwnerHandlers(owner: owner, onValue: onValue, onCompletion: onCompletion),
            method: "subscribe(with:onValue:onCompletion:)"
        )
    }
}
