extension Flow {
    /// Subscribes on behalf of `owner`, held weakly and handed to the handlers: no
    /// `[weak self]` at the call site.
    ///
    /// ```swift
    /// user.subscribe(with: self) { viewModel, user in viewModel.nameRelay.accept(user.name) }.store(in: bag)
    /// ```
    ///
    /// RxSwift: `subscribe(with:onNext:onError:onCompleted:)`; Combine: a `sink` capturing `[weak self]`.
    ///
    /// Once the owner is gone nothing more is delivered, and the subscription cancels itself at
    /// the next event; store the token in the owner's ``CancellationBag`` to end it at once.
    /// Handlers run on the source's thread; do not capture the owner strongly in them.
    /// `onCompletion` (by default nothing) runs only if the owner still lives. Releasing the
    /// token does not cancel.
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
