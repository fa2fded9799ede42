import Dispatch

/// A flow delivered on the main actor, whose handlers are isolated to it: what a
/// `@MainActor` view model subscribes to.
///
/// Made by ``Flow/receive(on:)-(MainActor)`` (or ``Flow/driver(replacingFailureWith:)``).
/// Every handler is a `@MainActor` closure, so it may change main-actor state directly: no
/// `DispatchQueue.main.async`, no `nonisolated`, no `@unchecked Sendable`. Its `subscribe`
/// methods are called on the main actor too. Events arrive in order on the main queue, never
/// synchronously on the sending thread (see ``Flow/receive(on:)-(DispatchQueue)`` for how they
/// are batched; a driver delivers at once an event that comes on the main queue while nothing
/// waits), and nothing arrives after `cancel()` has returned on the main actor. Each
/// subscription hops on its own, after anything shared, so no other subscriber's thread ever
/// runs these handlers.
///
/// ```swift
/// @MainActor final class ProfileViewModel {
///     var title = ""
///     let bag = CancellationBag()
///
///     init(names: Flow<String, Never>) {
///         names.receive(on: MainActor.shared)
///             .subscribe(with: self) { viewModel, name in viewModel.title = name }
///             .store(in: bag)
///     }
/// }
/// ```
///
/// RxSwift: an `Observable` after `observe(on: MainScheduler.instance)` (RxCocoa's `Driver` when
/// it cannot fail and is shared); Combine: a publisher after `receive(on: DispatchQueue.main)`.
public struct MainActorFlow<Element: Sendable, Failure: Error>: Sendable {
    /// The flow before the hop: each subscription gets a hop of its own, after anything shared,
    /// so whoever delivers upstream never delivers to a main-actor handler.
    @usableFromInline let upstream: Flow<Element, Failure>
    /// Whether an event that comes on the main queue while nothing waits is delivered at once
    /// (a driver's replay inside `subscribe`) instead of in a later main-queue block.
    @usableFromInline let deliversInlineOnMain: Bool

    @inlinable
    init(hopping upstream: Flow<Element, Failure>, deliversInlineOnMain: Bool) {
        self.upstream = upstream
        self.deliversInlineOnMain = deliversInlineOnMain
    }

    /// The same events as a plain ``Flow``, delivered on the main queue (for operators or a
    /// consumer that does not need the main actor's isolation). Each subscription hops on its
    /// own. A driver subscribed on the main actor gets its replay of the latest value inside
    /// `subscribe`.
    ///
    /// ```swift
    /// let titles: Flow<String, Never> = names.receive(on: MainActor.shared).flow
    /// ```
    @inlinable
    public var flow: Flow<Element, Failure> {
        upstream.hop(toMainInline: deliversInlineOnMain)
    }

    /// Subscribes with one handler for every event, called on the main actor.
    ///
    /// The token must be kept: releasing it does not cancel (see ``Flow/subscribe(_:)``).
    ///
    /// ```swift
    /// names.receive(on: MainActor.shared)
    ///     .subscribe { event in print(event) }
    ///     .store(in: bag)
    /// ```
    ///
    /// RxSwift: `observe(on: MainScheduler.instance).subscribe { event in }`; Combine:
    /// `receive(on: DispatchQueue.main).sink(…)`.
    @inlinable @MainActor
    public func subscribe(_ onEvent: @escaping @MainActor @Sendable (FlowEvent<Element, Failure>) -> Void) -> CancellationToken {
        flow.subscribe { event in onMainActor("MainActorFlow.subscribe(_:)") { onEvent(event) } }
    }

    /// Subscribes with a handler for values and one for the completion, both called on the
    /// main actor.
    ///
    /// ```swift
    /// @MainActor final class SearchViewModel {
    ///     var results: [String] = []
    ///     var isSearching = true
    ///     let bag = CancellationBag()
    ///
    ///     init(search: Flow<[String], any Error>) {
    ///         search.receive(on: MainActor.shared).subscribe(
    ///             onValue: { self.results = $0 },
    ///             onCompletion: { _ in self.isSearching = false }
    ///         ).store(in: bag)
    ///     }
    /// }
    /// ```
    ///
    /// RxSwift: `observe(on: MainScheduler.instance).subscribe(onNext:onError:onCompleted:)`;
    /// Combine: `receive(on: DispatchQueue.main).sink(receiveCompletion:receiveValue:)`.
    @inlinable @MainActor
    public func subscribe(
        onValue: @escaping @MainActor @Sendable (Element) -> Void,
        onCompletion: @escaping @MainActor @Sendable (FlowCompletion<Failure>) -> Void
    ) -> CancellationToken {
        flow.subscribe(
            onValue: { value in onMainActor("MainActorFlow.subscribe(onValue:onCompletion:)") { onValue(value) } },
            onCompletion: { completion in onMainActor("MainActorFlow.subscribe(onValue:onCompletion:)") { onCompletion(completion) } }
        )
    }

    /// Subscribes on behalf of `owner`, held weakly and handed to the handlers on the main
    /// actor: ``Flow/subscribe(with:onValue:onCompletion:)`` for a main-actor owner.
    ///
    /// Once the owner is gone nothing more is delivered, and the subscription cancels itself at
    /// the next event.
    ///
    /// ```swift
    /// @MainActor final class BadgeViewModel {
    ///     var count = 0
    ///     let bag = CancellationBag()
    ///
    ///     init(unread: Flow<Int, Never>) {
    ///         unread.receive(on: MainActor.shared)
    ///             .subscribe(with: self) { viewModel, count in viewModel.count = count }
    ///             .store(in: bag)
    ///     }
    /// }
    /// ```
    ///
    /// RxSwift: `observe(on: MainScheduler.instance).subscribe(with:onNext:…)`; Combine: a
    /// `sink` whose closures capture `[weak self]`.
    @inlinable @MainActor
    public func subscribe<Owner: AnyObject & Sendable>(
        with owner: Owner,
        onValue: @escaping @MainActor @Sendable (Owner, Element) -> Void,
        onCompletion: @escaping @MainActor @Sendable (Owner, FlowCompletion<Failure>) -> Void = { _, _ in }
    ) -> CancellationToken {
        flow.subscribe(
            with: owner,
            onValue: { owner, value in onMainActor("MainActorFlow.subscribe(with:onValue:onCompletion:)") { onValue(owner, value) } },
            onCompletion: { owner, completion in
                onMainActor("MainActorFlow.subscribe(with:onValue:onCompletion:)") { onCompletion(owner, completion) }
            }
        )
    }

    /// ``Flow/flatMap(weak:maxConcurrent:_:)`` whose `transform` runs on the main actor, so it
    /// may call the owner's main-actor methods; the inner flows' values are delivered on the
    /// main actor again.
    ///
    /// ```swift
    /// @MainActor final class FeedViewModel {
    ///     let bag = CancellationBag()
    ///     func loadPosts(for user: User) -> Flow<[String], APIError> { .just(["hello"]) }
    ///
    ///     func bind(logins: Flow<User, APIError>) -> MainActorFlow<[String], APIError> {
    ///         logins.receive(on: MainActor.shared)
    ///             .flatMap(weak: self) { viewModel, user in viewModel.loadPosts(for: user) }
    ///     }
    /// }
    /// ```
    ///
    /// RxSwift: the community's `flatMap(weak:selector:)` after
    /// `observe(on: MainScheduler.instance)`; Combine has none.
    @inlinable
    public func flatMap<Owner: AnyObject & Sendable, NewElement>(
        weak owner: Owner,
        _ transform: @escaping @MainActor @Sendable (Owner, Element) -> Flow<NewElement, Failure>
    ) -> MainActorFlow<NewElement, Failure> {
        // The outer values arrive on the main queue, and flatMap without a limit calls the
        // selector in the outer delivery itself.
        let inners = flow.flatMap(weak: owner) { owner, value in
            onMainActor("MainActorFlow.flatMap(weak:_:)") { transform(owner, value) }
        }
        return inners.receive(on: MainActor.shared)
    }

    /// ``Flow/flatMapLatest(weak:_:)`` whose `transform` runs on the main actor; the latest
    /// inner's values are delivered on the main actor again.
    ///
    /// ```swift
    /// @MainActor final class GroupViewModel {
    ///     func group(of id: Int) -> Flow<String, Never> { .just("group \(id)") }
    ///
    ///     func bind(ids: Flow<Int, Never>) -> MainActorFlow<String, Never> {
    ///         ids.receive(on: MainActor.shared)
    ///             .flatMapLatest(weak: self) { viewModel, id in viewModel.group(of: id) }
    ///     }
    /// }
    /// ```
    ///
    /// RxSwift: the community's `flatMapLatest(weak:selector:)` after
    /// `observe(on: MainScheduler.instance)`; Combine has none.
    @inlinable
    public func flatMapLatest<Owner: AnyObject & Sendable, NewElement>(
        weak owner: Owner,
        _ transform: @escaping @MainActor @Sendable (Owner, Element) -> Flow<NewElement, Failure>
    ) -> MainActorFlow<NewElement, Failure> {
        let inners = flow.flatMapLatest(weak: owner) { owner, value in
            onMainActor("MainActorFlow.flatMapLatest(weak:_:)") { transform(owner, value) }
        }
        return inners.receive(on: MainActor.shared)
    }
}

extension MainActorFlow where Failure == Never {
    /// Writes every value to `root[keyPath: keyPath]` on the main actor, holding `root`
    /// weakly: Combine's `assign(to:on:)` (which holds its object strongly, a retain cycle when
    /// it is `self`), RxCocoa's `bind(to:)` a property `Binder`.
    ///
    /// Once `root` is gone nothing more is written, and the subscription cancels itself at the
    /// next value. The token must be kept: releasing it does not cancel.
    ///
    /// ```swift
    /// @MainActor final class CounterViewModel {
    ///     var count = 0
    ///     let bag = CancellationBag()
    ///
    ///     init(counts: Flow<Int, Never>) {
    ///         counts.receive(on: MainActor.shared).assign(to: \.count, on: self).store(in: bag)
    ///     }
    /// }
    /// ```
    @inlinable @MainActor
    public func assign<Root: AnyObject & Sendable>(
        to keyPath: ReferenceWritableKeyPath<Root, Element>,
        on root: Root
    ) -> CancellationToken {
        let keyPath = MainActorBound(keyPath)
        return subscribe(with: root) { root, value in root[keyPath: keyPath.value] = value }
    }
}

/// A value made on the main actor and read only there, so it may be captured by a main-actor
/// handler although it is not `Sendable` (a key path may hold subscript arguments that are
/// not).
@usableFromInline
struct MainActorBound<Value>: @unchecked Sendable {
    // @unchecked: `init` and `value` are main-actor isolated, so the value is only ever read on
    // the main actor, wherever the struct travels in between. Its last release may happen on
    // another thread (the one that cancels); for a key path that only releases the path and its
    // subscript arguments, which a `Sendable`-checked caller on the main actor made.
    @usableFromInline let stored: Value

    @inlinable @MainActor
    init(_ value: Value) {
        stored = value
    }

    @inlinable @MainActor
    var value: Value { stored }
}

extension Flow {
    /// Delivers every event on the main actor, to handlers isolated to it: RxSwift's
    /// `observe(on: MainScheduler.instance)`, Combine's `receive(on: DispatchQueue.main)`.
    ///
    /// Events are handed to the main queue and delivered there in order, never synchronously
    /// on the sending thread; after `cancel()` returns on the main actor nothing more arrives.
    /// See ``MainActorFlow``.
    ///
    /// ```swift
    /// @MainActor final class TitleViewModel {
    ///     var title = ""
    ///     let bag = CancellationBag()
    ///
    ///     init(titles: Flow<String, Never>) {
    ///         titles.receive(on: MainActor.shared)
    ///             .subscribe(with: self) { viewModel, title in viewModel.title = title }
    ///             .store(in: bag)
    ///     }
    /// }
    /// ```
    @inlinable
    public func receive(on mainActor: MainActor) -> MainActorFlow<Element, Failure> {
        MainActorFlow(hopping: self, deliversInlineOnMain: false)
    }
}

extension Flow {
    /// A "driver": a flow for the screen that never fails, is shared by all its
    /// subscribers (who get the latest value at once), and delivers on the main actor.
    ///
    /// A failure is replaced by `fallback`, then the flow finishes. The upstream runs once for
    /// all the subscribers at a time (`share(replay: 1, scope: .whileConnected)`), and starts
    /// again when a subscriber comes after all had left. Each subscriber then hops to the main
    /// queue on its own, so a subscriber on another thread never delivers to one on the main
    /// actor. A subscriber that comes on the main actor while it runs gets the latest value
    /// inside `subscribe`, and an event sent on the main queue while nothing waits for that
    /// subscriber is delivered at once (RxCocoa's `MainScheduler` does the same).
    ///
    /// ```swift
    /// @MainActor final class ProfileScreen {
    ///     var name = ""
    ///     let bag = CancellationBag()
    ///
    ///     init(user: Flow<User, APIError>) {
    ///         let name = user.map(\.name).driver(replacingFailureWith: "—")
    ///         name.assign(to: \.name, on: self).store(in: bag)
    ///     }
    /// }
    /// ```
    ///
    /// RxCocoa: `asDriver(onErrorJustReturn:)`; Combine:
    /// `replaceError(with:).share().receive(on: DispatchQueue.main)` (without the replay).
    @inlinable
    public func driver(replacingFailureWith fallback: Element) -> MainActorFlow<Element, Never> {
        replaceError(with: fallback).driver()
    }
}

extension Flow where Failure == Never {
    /// A "driver" for a flow that cannot fail: shared by all its subscribers (one that
    /// comes while it runs gets the latest value inside `subscribe`) and delivered on the main
    /// actor.
    ///
    /// ```swift
    /// @MainActor final class ClockScreen {
    ///     var now = ""
    ///     let bag = CancellationBag()
    ///
    ///     init(ticks: Flow<String, Never>) {
    ///         ticks.driver().assign(to: \.now, on: self).store(in: bag)
    ///     }
    /// }
    /// ```
    ///
    /// RxCocoa: `asDriver()` of a relay or of an `Infallible`; Combine:
    /// `share().receive(on: DispatchQueue.main)` (without the replay).
    @inlinable
    public func driver() -> MainActorFlow<Element, Never> {
        MainActorFlow(hopping: share(replay: 1), deliversInlineOnMain: true)
    }
}

/// Runs a `@MainActor` closure that the library calls from a path on the main queue; debug
/// builds stop with a message naming `operation` if the path is not on the main actor.
@inlinable
func onMainActor<T: Sendable>(_ operation: StaticString, _ body: @MainActor () -> T) -> T {
    #if DEBUG
    MainActor.preconditionIsolated("AsyncBridge: \(operation) called its @MainActor closure off the main actor")
    #endif
    return MainActor.assumeIsolated(body)
}
