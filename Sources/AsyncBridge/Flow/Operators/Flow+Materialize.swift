extension Flow {
    /// Every event as a value: each value as `.value`, then the completion as a last value
    /// (`.finished` or `.failure`), then finished. The result cannot fail, so a failure reaches
    /// the subscriber as data, and the subscription it ends is the only one that ends.
    ///
    /// RxSwift: `materialize()`; Combine: none (CombineExt's `materialize()`).
    ///
    /// ```swift
    /// let events = request.materialize()   // Flow<FlowEvent<User, APIError>, Never>
    /// ```
    @inlinable
    public func materialize() -> Flow<FlowEvent<Element, Failure>, Never> {
        passing({ .value($0) }) { completion, _, subscriber in
            subscriber.finish(sending: FlowEvent(completion))
        }
    }

    /// The events of a flow of ``FlowEvent``s played back: `.value`s as values, and the first
    /// `.finished` or `.failure` ends the flow, cancelling the upstream first. An upstream that
    /// finishes first finishes the flow; one that fails fails it. The inverse of
    /// ``materialize()``. This form is for an upstream that fails with the events' failure
    /// type; another serves an upstream that cannot fail (what `materialize()` makes).
    ///
    /// RxSwift: `dematerialize()`; Combine: none (CombineExt's `dematerialize()`).
    ///
    /// ```swift
    /// let users = events.dematerialize()   // Flow<User, APIError>
    /// ```
    @inlinable @_disfavoredOverload  // where `Failure` is `Never` both forms fit; the one for an upstream that cannot fail is the choice
    public func dematerialize<Value: Sendable>() -> Flow<Value, Failure> where Element == FlowEvent<Value, Failure> {
        dematerialize(upstreamFailure: { $0 })
    }

    /// ``dematerialize()``, with the upstream's failure turned into the events' one.
    @inlinable
    func dematerialize<Value: Sendable, EventFailure>(
        upstreamFailure: @escaping @Sendable (Failure) -> EventFailure
    ) -> Flow<Value, EventFailure> where Element == FlowEvent<Value, EventFailure> {
        let upstream = self
        return Flow<Value, EventFailure> { subscriber in
            let upstreamSubscription = subscriber.subscription.child()
            let ended = SerialState(false)
            let receive = subscriber.receive
            upstream.run(FlowSubscriber(
                subscription: upstreamSubscription,
                receive: { event in
                    if ended.value { return .stop }
                    let completion: FlowCompletion<EventFailure>
                    switch event {
                    case .value(let value): return receive(value)
                    case .finished: completion = .finished
                    case .failure(let error): completion = .failure(error)
                    }
                    ended.value = true
                    upstreamSubscription.cancel()
                    subscriber.complete(completion)
                    return .stop
                },
                complete: { completion in
                    if ended.value { return }
                    ended.value = true
                    switch completion {
                    case .finished: subscriber.complete(.finished)
                    case .failure(let error): subscriber.complete(.failure(upstreamFailure(error)))
                    }
                }
            ))
        }
    }
}

extension Flow where Failure == Never {
    /// The events of a flow of ``FlowEvent``s played back: `.value`s as values, and the first
    /// `.finished` or `.failure` ends the flow, cancelling the upstream first; the upstream
    /// finishing first finishes it. The inverse of ``materialize()``.
    ///
    /// RxSwift: `dematerialize()`; Combine: none (CombineExt's `dematerialize()`).
    ///
    /// ```swift
    /// let users = request.materialize().handleEvents(onValue: { print($0) }).dematerialize()   // Flow<User, APIError>
    /// ```
    @inlinable
    public func dematerialize<Value: Sendable, EventFailure>() -> Flow<Value, EventFailure>
    where Element == FlowEvent<Value, EventFailure> {
        dematerialize(upstreamFailure: { (never: Never) -> EventFailure in })
    }
}
