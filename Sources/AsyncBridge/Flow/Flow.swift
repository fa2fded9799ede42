/// Many values, then at most one completion, pushed to subscribers: the hub of the stream
/// bridges.
///
/// ```swift
/// let token = Flow.sequence([1, 2, 3]).map { $0 * 10 }.subscribe { print($0) }   // value(10), …, finished
/// ```
///
/// RxSwift: `Observable`; Combine: `AnyPublisher`.
///
/// Cold: each subscription runs the source anew. A subscriber sees `value* (finished | failure)?`,
/// one event at a time, and nothing after its cancellation has returned. Sources may emit on
/// any thread, so `Element` is `Sendable`. Every operator returns a `Flow`: no type erasure.
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
    /// ```swift
    /// flow.subscribe { event in events.append(event) }.store(in: bag)
    /// ```
    ///
    /// RxSwift: `subscribe(_ on: (Event) -> Void)`; Combine: `sink(receiveCompletion:receiveValue:)`.
    ///
    /// Events come one at a time, on the thread the source emits on. Cancelling the token stops
    /// deliveries and runs the source's cancel action; releasing it does **not** cancel, so
    /// keep it (`_ =` for a subscription meant to live as long as its source).
    @inlinable
    public func subscribe(_ onEvent: @escaping @Sendable (FlowEvent<Element, Failure>) -> Void) -> CancellationToken {
        subscribe(FlowHandlers(onValue: { onEvent(.value($0)) }, onCompletion: { onEvent(FlowEvent($0)) }), method: "subscribe(_:)")
    }

    /// Subscribes with a handler for values and one for the completion.
    ///
    /// ```swift
    /// names.subscribe(onValue: { print($0) }, onCompletion: { _ in }).store(in: bag)
    /// ```
    ///
    /// RxSwift: `subscribe(onNext:onError:onCompleted:)`; Combine: `sink(receiveCompletion:receiveValue:)`.
    ///
    /// Both handlers are required (write `onCompletion: { _ in }` to ignore it), so a lone
    /// trailing closure always means ``subscribe(_:)``. Keep the token: releasing it does not cancel.
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
    /// _ = endless.subscribe(onStart: { $0.store(in: bag) }, onValue: { if $0 == 3 { bag.cancelAll() } }, onCompletion: { _ in })
    /// ```
    ///
    /// RxSwift: an operator's sink holding its `Disposable`; Combine: `receive(subscription:)`.
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
    /// first event, so the handler can cancel a synchronous source before `subscribe` returns.
    ///
    /// ```swift
    /// _ = endless.subscribe(onStart: { $0.store(in: bag) }) { if case .value(3) = $0 { bag.cancelAll() } }
    /// ```
    ///
    /// RxSwift: an operator's sink holding its `Disposable`; Combine: `receive(subscription:)`.
    ///
    /// `onStart` is called once, at once, with the token that `subscribe` returns.
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
