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
///     .subscribe(onValue: { print($0) }, onCompletion: { print($0) })
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

    /// Subscribes with one handler for every event.
    ///
    /// Events come one at a time, on the thread the source emits on. Cancelling the returned
    /// token stops deliveries and runs the source's cancel action; releasing it does not
    /// cancel (store it in a ``CancellationBag`` to tie it to an owner's life).
    ///
    /// ```swift
    /// flow.subscribe { event in events.append(event) }.store(in: bag)
    /// ```
    @inlinable
    @discardableResult
    public func subscribe(_ onEvent: @escaping @Sendable (FlowEvent<Element, Failure>) -> Void) -> CancellationToken {
        subscribe(onValue: { onEvent(.value($0)) }, onCompletion: { onEvent(FlowEvent($0)) })
    }

    /// Subscribes with a handler for values and one for the completion.
    ///
    /// RxSwift: `subscribe(onNext:onError:onCompleted:)`; Combine: `sink(receiveCompletion:receiveValue:)`.
    ///
    /// ```swift
    /// let token = names.subscribe(onValue: { label.text = $0 }, onCompletion: { _ in spinner.stop() })
    /// ```
    ///
    /// A trailing closure alone (`flow.subscribe { … }`) means ``subscribe(_:)``, which
    /// receives events; name `onValue:` to use this one.
    @inlinable @_disfavoredOverload
    @discardableResult
    public func subscribe(
        onValue: @escaping @Sendable (Element) -> Void,
        onCompletion: @escaping @Sendable (FlowCompletion<Failure>) -> Void = { _ in }
    ) -> CancellationToken {
        let subscription = FlowSubscription()
        let ended = SerialState(false)
        run(FlowSubscriber(
            subscription: subscription,
            receive: { value in
                if ended.value { return .stop }
                onValue(value)
                return .more
            },
            complete: { completion in
                if ended.value { return }
                ended.value = true
                onCompletion(completion)
            }
        ))
        return CancellationToken { subscription.cancel() }
    }
}
