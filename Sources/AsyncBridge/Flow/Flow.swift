/// Many values, then at most one completion, pushed to subscribers: the hub of the stream
/// bridges.
///
/// - **One concrete type.** Every operator returns a `Flow`, so a chain never needs type
///   erasure, and a closure may return differently built flows from its branches (no
///   `eraseToAnyPublisher()`, no `AnyObservable`).
/// - **Cold by default.** Each subscription runs the source anew; subjects, relays and
///   `share(replay:)` make a flow hot.
/// - **Rx grammar.** A subscriber sees `value* (finished | failure)?`, one event at a time,
///   even when the source emits from many threads, and nothing after its cancellation has
///   returned.
/// - **`Sendable` values.** Any source may emit on any thread (an emitter, a subject, a
///   merging operator that delivers on whichever thread completes a pair), so `Element` is
///   `Sendable` and a racy program does not compile. Send a non-`Sendable` object as a
///   `Sendable` snapshot of what the subscriber needs (a struct of its values).
///
/// ```swift
/// let token = Flow.sequence([1, 2, 3])
///     .map { $0 * 10 }
///     .subscribe { event in print(event) }   // value(10), value(20), value(30), finished
/// ```
///
/// RxSwift: `Observable`; Combine: `AnyPublisher`.
public struct Flow<Element: Sendable, Failure: Error>: Sendable {
    @usableFromInline
    let run: @Sendable (FlowSubscriber<Element, Failure>) -> Void

    /// A flow whose subscriptions call `run` (the internal form every source builds on).
    @inlinable
    init(run: @escaping @Sendable (FlowSubscriber<Element, Failure>) -> Void) {
        self.run = run
    }

    /// Subscribes with one handler for every event: the meaning of a lone trailing closure.
    ///
    /// Events come one at a time, on the thread the source emits on. Cancelling the returned
    /// token stops deliveries and runs the source's cancel action.
    ///
    /// ```swift
    /// flow.subscribe { event in events.append(event) }.store(in: bag)
    /// ```
    ///
    /// `flow.subscribe { … }` always means this method, whatever the closure's body: it is the
    /// only `subscribe` that takes a single trailing closure (``subscribe(onValue:onCompletion:)``
    /// requires both of its handlers, and ``subscribe(with:onValue:onCompletion:)`` its owner).
    /// It receives events rather than values because that is RxSwift's `subscribe { event in }`,
    /// whose name this method shares, and because a handler of events cannot forget the
    /// failure: a closure that only handles values would drop it without a word (Combine's
    /// `sink(receiveValue:)` exists only for flows that cannot fail, for that reason).
    ///
    /// The token must be kept: releasing it does **not** cancel (as RxSwift's `Disposable`,
    /// unlike Combine's `AnyCancellable`), so a subscription whose token is dropped runs as long
    /// as its source does. The result is therefore not discardable: the compiler warns about a
    /// forgotten `.store(in: bag)`. Write `_ = flow.subscribe { … }` for a subscription that is
    /// meant to live as long as its source.
    ///
    /// RxSwift: `subscribe(_ on: (Event) -> Void)`; Combine: `sink(receiveCompletion:receiveValue:)`
    /// (two handlers).
    ///
    /// - Returns: a token that cancels the subscription. Releasing it does not cancel.
    @inlinable
    public func subscribe(_ onEvent: @escaping @Sendable (FlowEvent<Element, Failure>) -> Void) -> CancellationToken {
        subscribe(FlowHandlers(onValue: { onEvent(.value($0)) }, onCompletion: { onEvent(FlowEvent($0)) }), method: "subscribe(_:)")
    }

    /// Subscribes with a handler for values and one for the completion.
    ///
    /// Both handlers are required, so that a lone trailing closure (`flow.subscribe { … }`)
    /// always means ``subscribe(_:)``, which receives events: with a default completion
    /// handler, Swift would match a trailing closure to `onValue` too (SE-0286), and the
    /// closure's body would decide which method it meant. For values only, write
    /// `onCompletion: { _ in }`: a failure ignored is then ignored in writing.
    ///
    /// The token must be kept: releasing it does **not** cancel, so the result is not
    /// discardable (see ``subscribe(_:)``).
    ///
    /// RxSwift: `subscribe(onNext:onError:onCompleted:)`; Combine: `sink(receiveCompletion:receiveValue:)`.
    ///
    /// ```swift
    /// names.receive(on: MainActor.shared).subscribe(onValue: { label.text = $0 }, onCompletion: { _ in spinner.stop() })
    ///     .store(in: bag)
    /// ```
    ///
    /// - Returns: a token that cancels the subscription. Releasing it does not cancel.
    @inlinable
    public func subscribe(
        onValue: @escaping @Sendable (Element) -> Void,
        onCompletion: @escaping @Sendable (FlowCompletion<Failure>) -> Void
    ) -> CancellationToken {
        subscribe(FlowHandlers(onValue: onValue, onCompletion: onCompletion), method: "subscribe(onValue:onCompletion:)")
    }

    /// Runs the flow into a ``FlowSink`` guarding `handlers`: every subscription the user holds
    /// is made here.
    @inlinable
    func subscribe<Handlers: FlowSinkHandlers>(_ handlers: Handlers, method: StaticString) -> CancellationToken
    where Handlers.Element == Element, Handlers.Failure == Failure {
        subscribe(handlers, method: method, onStart: { _ in })
    }

    /// The same, handing the token to `onStart` before the flow runs; a token cancelled there
    /// runs nothing.
    @inlinable
    func subscribe<Handlers: FlowSinkHandlers>(
        _ handlers: Handlers,
        method: StaticString,
        onStart: (CancellationToken) -> Void
    ) -> CancellationToken where Handlers.Element == Element, Handlers.Failure == Failure {
        let sink = FlowSink(handlers, method: method)
        onStart(sink.token)
        if sink.token.isOpen { run(sink.subscriber) }
        return sink.token
    }

    /// Subscribes with a handler for values and one for the completion, handing the token to
    /// `onStart` before the first event: ``subscribe(onStart:_:)`` with two handlers.
    ///
    /// ```swift
    /// let bag = CancellationBag()
    /// _ = Flow<Int, Never>.sequence(1...).subscribe(
    ///     onStart: { $0.store(in: bag) },
    ///     onValue: { value in if value == 3 { bag.cancelAll() } },   // the endless source stops
    ///     onCompletion: { _ in }
    /// )
    /// ```
    ///
    /// RxSwift: an operator's sink holding its `Disposable` before its source emits; Combine:
    /// `receive(subscription:)`, then `receive(_:)` and `receive(completion:)`.
    ///
    /// - Returns: the token handed to `onStart`.
    @inlinable
    public func subscribe(
        onStart: (CancellationToken) -> Void,
        onValue: @escaping @Sendable (Element) -> Void,
        onCompletion: @escaping @Sendable (FlowCompletion<Failure>) -> Void
    ) -> CancellationToken {
        subscribe(
            FlowHandlers(onValue: onValue, onCompletion: onCompletion),
            method: "subscribe(onStart:onValue:onCompletion:)",
            onStart: onStart
        )
    }

    /// Subscribes with one handler for every event, handing the token to `onStart` before the
    /// first event: the handler can then cancel even while `subscribe` has not returned yet,
    /// and a synchronous source (a sequence, a `create` loop, a bridge to another library)
    /// stops at once.
    ///
    /// Useful for an adapter to another library's subscriber, which learns that it should stop
    /// inside a delivery.
    ///
    /// ```swift
    /// let bag = CancellationBag()
    /// _ = Flow<Int, Never>.sequence(1...).subscribe(onStart: { $0.store(in: bag) }) { event in
    ///     print(event)
    ///     if case .value(3) = event { bag.cancelAll() }   // the endless source stops after 3
    /// }
    /// ```
    ///
    /// RxSwift: the `Disposable` an operator's sink holds before its source emits; Combine: the
    /// `Subscription` a subscriber receives in `receive(subscription:)`, before any value.
    ///
    /// - Parameters:
    ///   - onStart: called once, at once, with the subscription's token.
    ///   - onEvent: called for every event, as with ``subscribe(_:)``.
    /// - Returns: the same token.
    @inlinable
    public func subscribe(
        onStart: (CancellationToken) -> Void,
        _ onEvent: @escaping @Sendable (FlowEvent<Element, Failure>) -> Void
    ) -> CancellationToken {
        subscribe(
            FlowHandlers(onValue: { onEvent(.value($0)) }, onCompletion: { onEvent(FlowEvent($0)) }),
            method: "subscribe(onStart:_:)",
            onStart: onStart
        )
    }
}
