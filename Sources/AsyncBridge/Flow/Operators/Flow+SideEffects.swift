extension Flow {
    /// Runs side effects as events pass, without changing them: the place for logging,
    /// analytics and spinners, rather than `map`.
    ///
    /// `onCancel` runs when the subscriber cancels before completion; `onSubscribe` when a
    /// subscription starts.
    ///
    /// RxSwift: `do(onNext:onError:onCompleted:onSubscribe:onDispose:)`; Combine: `handleEvents`.
    ///
    /// ```swift
    /// let users = request
    ///     .handleEvents(onSubscribe: { spinner.start() }, onCompletion: { _ in spinner.stop() })
    /// ```
    @inlinable
    public func handleEvents(
        onSubscribe: (@Sendable () -> Void)? = nil,
        onValue: (@Sendable (Element) -> Void)? = nil,
        onCompletion: (@Sendable (FlowCompletion<Failure>) -> Void)? = nil,
        onCancel: (@Sendable () -> Void)? = nil
    ) -> Flow {
        let upstream = self
        return Flow { subscriber in
            onSubscribe?()
            if let onCancel { subscriber.subscription.onCancel(onCancel) }
            let receive = subscriber.receive
            let complete = subscriber.complete
            upstream.run(FlowSubscriber(
                subscription: subscriber.subscription,
                receive: { value in
                    onValue?(value)
                    return receive(value)
                },
                complete: { completion in
                    onCompletion?(completion)
                    complete(completion)
                }
            ))
        }
    }
}
