// Weak-capture variants of the flatMap family: the `[weak self]` /
// `guard let self else { return .empty }` dance, written once. The owner must be `Sendable`:
// the selector runs on whichever thread the outer flow sends on.

extension WeakReference {
    /// The flow `build` makes with the owner, or an empty flow if the owner is gone.
    @inlinable
    func flow<Element, Failure: Error>(_ build: (Object) -> Flow<Element, Failure>) -> Flow<Element, Failure> {
        guard let object else { return .empty }
        return build(object)
    }
}

extension Flow {
    /// ``flatMap(maxConcurrent:_:)`` with a weakly held owner, handed to `transform` with each
    /// value; once the owner is gone, values map to empty flows.
    ///
    /// Useful instead of `[weak self]` and a `guard` in every selector:
    ///
    /// ```swift
    /// let posts = login(username, password)
    ///     .flatMap(weak: self) { owner, user in owner.loadPosts(for: user) }
    /// ```
    ///
    /// The flow never keeps the owner alive. The owner is checked each time an inner flow is
    /// about to start (for a queued value: when its turn comes); an inner flow already running
    /// goes on (cancel the subscription to stop it). The outer flow goes on after the owner's
    /// death, mapping values to nothing, until it completes or is cancelled. `maxConcurrent`
    /// (at least 1), completion, failure and cancellation are ``flatMap(maxConcurrent:_:)``'s.
    ///
    /// RxSwift: the community's `flatMap(weak:selector:)`, or `withUnretained(self)`
    /// then `flatMap`; Combine has none.
    @inlinable
    public func flatMap<Owner: AnyObject & Sendable, NewElement>(
        weak owner: Owner,
        maxConcurrent: Int = .max,
        _ transform: @escaping @Sendable (Owner, Element) -> Flow<NewElement, Failure>
    ) -> Flow<NewElement, Failure> {
        let owner = WeakReference(owner)
        return flatMap(maxConcurrent: maxConcurrent) { value in owner.flow { transform($0, value) } }
    }

    /// ``flatMapLatest(_:)`` with a weakly held owner, handed to `transform` with each value;
    /// once the owner is gone, values map to empty flows (which still cancel the running inner).
    ///
    /// ```swift
    /// let group = userIDs.flatMapLatest(weak: self) { owner, id in owner.groupOfUser(id) }
    /// ```
    ///
    /// The flow never keeps the owner alive; see ``flatMap(weak:maxConcurrent:_:)``.
    ///
    /// RxSwift: the community's `flatMapLatest(weak:selector:)`; Combine has none.
    @inlinable
    public func flatMapLatest<Owner: AnyObject & Sendable, NewElement>(
        weak owner: Owner,
        _ transform: @escaping @Sendable (Owner, Element) -> Flow<NewElement, Failure>
    ) -> Flow<NewElement, Failure> {
        let owner = WeakReference(owner)
        return flatMapLatest { value in owner.flow { transform($0, value) } }
    }

    /// ``flatMapFirst(_:)`` with a weakly held owner, handed to `transform` with each accepted
    /// value; once the owner is gone, values map to empty flows.
    ///
    /// ```swift
    /// let sessions = loginTaps.flatMapFirst(weak: self) { owner, _ in owner.logIn() }
    /// ```
    ///
    /// The flow never keeps the owner alive; see ``flatMap(weak:maxConcurrent:_:)``.
    ///
    /// RxSwift: the community's `flatMapFirst(weak:selector:)`; Combine has none.
    @inlinable
    public func flatMapFirst<Owner: AnyObject & Sendable, NewElement>(
        weak owner: Owner,
        _ transform: @escaping @Sendable (Owner, Element) -> Flow<NewElement, Failure>
    ) -> Flow<NewElement, Failure> {
        let owner = WeakReference(owner)
        return flatMapFirst { value in owner.flow { transform($0, value) } }
    }

    /// ``flatMapWithIndex(maxConcurrent:_:)`` with a weakly held owner, handed to `transform`
    /// with each value and its index; once the owner is gone, values map to empty flows (and
    /// still count for the index).
    ///
    /// ```swift
    /// let pages = requests.flatMapWithIndex(weak: self) { owner, request, index in
    ///     owner.loadPage(index, request)
    /// }
    /// ```
    ///
    /// The flow never keeps the owner alive; see ``flatMap(weak:maxConcurrent:_:)``.
    /// `maxConcurrent` is at least 1.
    ///
    /// RxSwift: the community's `flatMapWithIndex(weak:selector:)`; Combine has none.
    @inlinable
    public func flatMapWithIndex<Owner: AnyObject & Sendable, NewElement>(
        weak owner: Owner,
        maxConcurrent: Int = .max,
        _ transform: @escaping @Sendable (Owner, Element, Int) -> Flow<NewElement, Failure>
    ) -> Flow<NewElement, Failure> {
        let owner = WeakReference(owner)
        return flatMapWithIndex(maxConcurrent: maxConcurrent) { value, index in
            owner.flow { transform($0, value, index) }
        }
    }
}
