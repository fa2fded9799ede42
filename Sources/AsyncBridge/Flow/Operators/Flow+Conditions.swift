extension Flow {
    /// The values up to the first one that does not satisfy `predicate`, then finished; the
    /// upstream is cancelled at that value, which is not sent. `predicate` is not called again.
    ///
    /// RxSwift: `take(while:)` (its `behavior: .inclusive`, which also sends the first failing
    /// value, has no counterpart); Combine: `prefix(while:)`.
    ///
    /// ```swift
    /// let warmUp = temperatures.prefix { $0 < 60 }
    /// ```
    @inlinable
    public func prefix(while predicate: @escaping @Sendable (Element) -> Bool) -> Flow {
        let upstream = self
        return Flow { subscriber in
            let upstreamSubscription = subscriber.subscription.child()
            let ended = SerialState(false)
            let receive = subscriber.receive
            upstream.run(FlowSubscriber(
                subscription: upstreamSubscription,
                receive: { value in
                    if ended.value { return .stop }
                    if predicate(value) { return receive(value) }
                    ended.value = true
                    upstreamSubscription.cancel()
                    subscriber.complete(.finished)
                    return .stop
                },
                complete: { completion in
                    if ended.value { return }
                    ended.value = true
                    subscriber.complete(completion)
                }
            ))
        }
    }

    /// Drops values while they satisfy `predicate`; from the first one that does not, sends
    /// everything. `predicate` is not called again after that.
    ///
    /// RxSwift: `skip(while:)`; Combine: `drop(while:)`.
    ///
    /// ```swift
    /// let afterSplash = screens.drop { $0 == .splash }
    /// ```
    @inlinable
    public func drop(while predicate: @escaping @Sendable (Element) -> Bool) -> Flow {
        let upstream = self
        return Flow { subscriber in
            let dropping = SerialState(true)
            let receive = subscriber.receive
            upstream.run(FlowSubscriber(
                subscription: subscriber.subscription,
                receive: { value in
                    if dropping.value {
                        if predicate(value) { return .more }
                        dropping.value = false
                    }
                    return receive(value)
                },
                complete: subscriber.complete
            ))
        }
    }

    /// This flow's values until `trigger` sends a value; then finished, and both are cancelled.
    ///
    /// ```swift
    /// let progress = upload.progress.prefix(untilOutputFrom: cancelTaps)
    /// ```
    ///
    /// RxSwift: `take(until:)`; Combine: `prefix(untilOutputFrom:)`.
    ///
    /// A trigger that finishes without a value changes nothing; one that fails fails the result
    /// (as RxSwift; Combine ignores it). The trigger is subscribed first.
    @inlinable
    public func prefix<Other>(untilOutputFrom trigger: Flow<Other, Failure>) -> Flow {
        fanIn(with: trigger, triggerFirst: true, state: ()) { fanIn, _, event in
            switch event {
            case .first(.value(let value)): fanIn.send(value)
            case .first(.finished), .second(.value): fanIn.end(.finished)
            case .first(.failure(let error)), .second(.failure(let error)): fanIn.end(.failure(error))
            case .second(.finished): break
            }
        }
    }

    /// ``prefix(untilOutputFrom:)-(Flow<Other,Failure>)`` with a trigger that cannot fail.
    ///
    /// RxSwift: `take(until:)`; Combine: `prefix(untilOutputFrom:)`.
    ///
    /// ```swift
    /// let results = search.prefix(untilOutputFrom: closeTaps)   // closeTaps: Flow<Void, Never>
    /// ```
    @inlinable @_disfavoredOverload  // where `Failure` is `Never` both forms fit; the same-failure one is the choice
    public func prefix<Other>(untilOutputFrom trigger: Flow<Other, Never>) -> Flow {
        prefix(untilOutputFrom: trigger.setFailureType(to: Failure.self))
    }

    /// Drops this flow's values until `trigger` sends a value; then sends them all, and
    /// cancels the trigger.
    ///
    /// ```swift
    /// let afterLogin = notifications.drop(untilOutputFrom: loggedIn)
    /// ```
    ///
    /// RxSwift: `skip(until:)`; Combine: `drop(untilOutputFrom:)`.
    ///
    /// A trigger that finishes without a value, or this flow finishing first, finishes the
    /// result (as Combine). A trigger failure fails it. The trigger is subscribed first.
    @inlinable
    public func drop<Other>(untilOutputFrom trigger: Flow<Other, Failure>) -> Flow {
        fanIn(with: trigger, triggerFirst: true, state: false) { fanIn, triggered, event in
            switch event {
            case .first(.value(let value)): if triggered { fanIn.send(value) }
            case .first(.finished): fanIn.end(.finished)
            case .first(.failure(let error)): fanIn.end(.failure(error))
            case .second where triggered: break  // cancelled already
            case .second(.value):
                triggered = true
                fanIn.sources[1].cancel()
            case .second(.finished): fanIn.end(.finished)
            case .second(.failure(let error)): fanIn.end(.failure(error))
            }
        }
    }

    /// ``drop(untilOutputFrom:)-(Flow<Other,Failure>)`` with a trigger that cannot fail.
    ///
    /// RxSwift: `skip(until:)`; Combine: `drop(untilOutputFrom:)`.
    ///
    /// ```swift
    /// let afterLogin = requests.drop(untilOutputFrom: loggedIn)   // loggedIn: Flow<Void, Never>
    /// ```
    @inlinable @_disfavoredOverload  // where `Failure` is `Never` both forms fit; the same-failure one is the choice
    public func drop<Other>(untilOutputFrom trigger: Flow<Other, Never>) -> Flow {
        drop(untilOutputFrom: trigger.setFailureType(to: Failure.self))
    }

    /// Runs this flow (`.first`) and `trigger` (`.second`) into one ``FanIn``, whose `handle`
    /// gets per-subscription `state` with each event. The flow subscribed second is not
    /// subscribed at all if the first ended the result during its subscription.
    @inlinable
    func fanIn<Other, Output, State: Sendable>(
        with trigger: Flow<Other, Failure>,
        triggerFirst: Bool,
        state initial: State,
        _ handle: @escaping @Sendable (FanIn<EitherEvent<Element, Other, Failure>, Output, Failure>, inout State, EitherEvent<Element, Other, Failure>) -> Void
    ) -> Flow<Output, Failure> {
        let source = self
        return Flow<Output, Failure> { subscriber in
            let state = SerialState(initial)
            let fanIn = FanIn<EitherEvent<Element, Other, Failure>, Output, Failure>(
                downstream: subscriber, sourceCount: 2
            ) { fanIn, event in handle(fanIn, &state.value, event) }
            let subscribeSource = { source.feed(fanIn, through: fanIn.sources[0]) { .first($0) } }
            let subscribeTrigger = { trigger.feed(fanIn, through: fanIn.sources[1]) { .second($0) } }
            triggerFirst ? subscribeTrigger() : subscribeSource()
            guard !fanIn.sources[triggerFirst ? 0 : 1].isCancelled else { return }
            triggerFirst ? subscribeSource() : subscribeTrigger()
        }
    }
}
