import Dispatch

/// A flow delivered on the main actor, to `@MainActor` handlers: what a view model subscribes to.
///
/// ```swift
/// names.receive(on: MainActor.shared)
///     .subscribe(with: self) { viewModel, name in viewModel.title = name }
///     .store(in: bag)
/// ```
///
/// RxSwift: `observe(on: MainScheduler.instance)` (RxCocoa: `Driver`); Combine:
/// `receive(on: DispatchQueue.main)`.
///
/// Made by ``Flow/receive(on:)-(MainActor)`` or ``Flow/driver(replacingFailureWith:)``; the
/// `subscribe` methods are called on the main actor. Events arrive in order on the main queue,
/// never synchronously on the sending thread (a driver delivers at once an event that comes on
/// the main queue while nothing waits); nothing arrives after `cancel()` returned on the main
/// actor. Each subscription hops on its own, after anything shared.
public struct MainActorFlow<Element: Sendable, Failure: Error>: Sendable {
    /// The flow before the hop.
    @usableFromInline let upstream: Flow<Element, Failure>
    /// Whether an event on the main queue while nothing waits is delivered at once (a driver).
    @usableFromInline let deliversInlineOnMain: Bool

    @inlinable
    init(hopping upstream: Flow<Element, Failure>, deliversInlineOnMain: Bool) {
        self.upstream = upstream
        self.deliversInlineOnMain = deliversInlineOnMain
    }

    /// The same events as a plain ``Flow``, delivered on the main queue; each subscription hops
    /// on its own.
    ///
    /// ```swift
    /// let titles: Flow<String, Never> = names.receive(on: MainActor.shared).flow
    /// ```
    @inlinable
    public var flow: Flow<Element, Failure> {
        upstream.hop(toMainInline: deliversInlineOnMain)
    }

    /// Subscribes with one handler for every event, called on the main actor; keep the token
    /// (releasing it does not cancel).
    ///
    /// ```swift
    /// names.receive(on: MainActor.shared).subscribe { event in print(event) }.store(in: bag)
    /// ```
    ///
    /// RxSwift: `subscribe { event in }`; Combine: `sink(…)`.
    @inlinable @MainActor
    public func subscribe(_ onEvent: @escaping @MainActor @Sendable (FlowEvent<Element, Failure>) -> Void) -> CancellationToken {
        flow.subscribe { event in onMainActor("MainActorFlow.subscribe(_:)") { onEvent(event) } }
    }

    /// Subscribes with a handler for values and one for the completion, both on the main actor.
    ///
    /// ```swift
    /// search.receive(on: MainActor.shared)
    ///     .subscribe(onValue: { self.results = $0 }, onCompletion: { _ in self.isSearching = false })
    ///     .store(in: bag)
    /// ```
    ///
    /// RxSwift: `subscribe(onNext:onError:onCompleted:)`; Combine: `sink(receiveCompletion:receiveValue:)`.
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

    /// Subscribes on behalf of `owner`, held weakly and handed to the handlers on the main actor.
    ///
    /// ```swift
    /// unread.receive(on: MainActor.shared)
    ///     .subscribe(with: self) { viewModel, count in viewModel.count = count }
    ///     .store(in: bag)
    /// ```
    ///
    /// RxSwift: `subscribe(with:onNext:…)`; Combine: a `sink` capturing `[weak self]`.
    ///
    /// Once the owner is gone nothing more is delivered; the subscription cancels itself at the
    /// next event.
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

    /// ``Flow/flatMap(weak:maxConcurrent:_:)`` with `transform` on the main actor; the inner
    /// flows' values are delivered on the main actor again.
    ///
    /// ```swift
    /// logins.receive(on: MainActor.shared).flatMap(weak: self) { viewModel, user in viewModel.loadPosts(for: user) }
    /// ```
    ///
    /// RxSwift: the community's `flatMap(weak:selector:)`; Combine: none.
    @inlinable
    public func flatMap<Owner: AnyObject & Sendable, NewElement>(
        weak owner: Owner,
        _ transform: @escaping @MainActor @Sendable (Owner, Element) -> Flow<NewElement, Failure>
    ) -> MainActorFlow<NewElement, Failure> {
        // Outer values arrive on the main queue; unlimited flatMap calls the selector there.
        let inners = flow.flatMap(weak: owner) { owner, value in
            onMainActor("MainActorFlow.flatMap(weak:_:)") { transform(owner, value) }
        }
        return inners.receive(on: MainActor.shared)
    }

    /// ``Flow/flatMapLatest(weak:_:)`` with `transform` on the main actor; the latest inner's
    /// values are delivered on the main actor again.
    ///
    /// ```swift
    /// ids.receive(on: MainActor.shared).flatMapLatest(weak: self) { viewModel, id in viewModel.group(of: id) }
    /// ```
    ///
    /// RxSwift: the community's `flatMapLatest(weak:selector:)`; Combine: none.
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
    /// Writes every value to `root[keyPath: keyPath]` on the main actor, holding `root` weakly.
    ///
    /// ```swift
    /// counts.receive(on: MainActor.shared).assign(to: \.count, on: self).store(in: bag)
    /// ```
    ///
    /// RxCocoa: `bind(to:)` a `Binder`; Combine: `assign(to:on:)` (which holds `root` strongly).
    ///
    /// Once `root` is gone nothing more is written and the subscription cancels itself at the
    /// next value. Keep the token: releasing it does not cancel.
    @inlinable @MainActor
    public func assign<Root: AnyObject & Sendable>(
        to keyPath: ReferenceWritableKeyPath<Root, Element>,
        on root: Root
    ) -> CancellationToken {
        let keyPath = MainActorBound(keyPath)
        return subscribe(with: root) { root, value in root[keyPath: keyPath.value] = value }
    }
}

/// A value made on the main actor and read only there, so that a main-actor handler may capture
/// it although it is not `Sendable` (a key path may hold subscript arguments that are not).
@usableFromInline
struct MainActorBound<Value>: @unchecked Sendable {
    // @unchecked: `init` and `value` are main-actor isolated, so the value is only read there;
    // a release elsewhere only frees what a main-actor caller made.
    @usableFromInline let stored: Value

    @inlinable @MainActor
    init(_ value: Value) {
        stored = value
    }

    @inlinable @MainActor
    var value: Value { stored }
}

extension Flow {
    /// Delivers every event on the main actor, to handlers isolated to it (see ``MainActorFlow``).
    ///
    /// ```swift
    /// titles.receive(on: MainActor.shared)
    ///     .subscribe(with: self) { viewModel, title in viewModel.title = title }
    ///     .store(in: bag)
    /// ```
    ///
    /// RxSwift: `observe(on: MainScheduler.instance)`; Combine: `receive(on: DispatchQueue.main)`.
    @inlinable
    public func receive(on mainActor: MainActor) -> MainActorFlow<Element, Failure> {
        MainActorFlow(hopping: self, deliversInlineOnMain: false)
    }
}

extension Flow {
    /// A "driver": a flow for the screen that never fails, is shared by its subscribers (who
    /// get the latest value at once) and delivers on the main actor.
    ///
    /// ```swift
    /// user.map(\.name).driver(replacingFailureWith: "—").assign(to: \.name, on: self).store(in: bag)
    /// ```
    ///
    /// RxCocoa: `asDriver(onErrorJustReturn:)`; Combine:
    /// `replaceError(with:).share().receive(on: DispatchQueue.main)` (without the replay).
    ///
    /// A failure is replaced by `fallback`, then the flow finishes. The upstream runs once for
    /// all subscribers at a time (`share(replay: 1)`, restarting after all left); each subscriber
    /// hops to the main queue on its own. A subscriber on the main actor gets the latest value
    /// inside `subscribe`, and an event sent on the main queue while nothing waits is delivered
    /// at once.
    @inlinable
    public func driver(replacingFailureWith fallback: Element) -> MainActorFlow<Element, Never> {
        replaceError(with: fallback).driver()
    }
}

extension Flow where Failure == Never {
    /// A "driver" for a flow that cannot fail: shared by its subscribers (a late one gets the
    /// latest value inside `subscribe`) and delivered on the main actor.
    ///
    /// ```swift
    /// ticks.driver().assign(to: \.now, on: self).store(in: bag)
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
