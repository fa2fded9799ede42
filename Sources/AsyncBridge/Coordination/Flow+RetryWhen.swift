extension Flow {
    /// Resubscribes after a failure when the flow that `handler` makes from the failures sends
    /// a value; that flow's completion ends the result with the same completion.
    ///
    /// `handler` runs once per subscription. It receives the failures, one value per failed
    /// attempt, and returns the trigger: each failure waits for the trigger's next value, which
    /// starts the next attempt. So the retry policy is a flow: a delay, a count, a check of the
    /// error, a wait for the network to come back.
    ///
    /// ```swift
    /// let users = api.users.retry { failures in
    ///     failures.setFailureType(to: APIError.self).flatMapWithIndex { error, index in
    ///         index < 3 && error.isTransient ? reachability.online.first() : .fail(error)
    ///     }
    /// }
    /// ```
    ///
    /// - **Trigger values** count only while a failure waits for one: a value sent while an
    ///   attempt runs (or before the first failure) is ignored, as in RxSwift, which listens to
    ///   the trigger only between a failure and the next attempt.
    /// - **The trigger's completion** ends the result at once, with the same completion (the
    ///   failure waiting for it is dropped), when a failure waits; when an attempt runs, that
    ///   attempt goes on, and its finish finishes the result while its failure ends the result
    ///   with the trigger's completion instead of being retried. RxSwift behaves the same (its
    ///   trigger subject replays its completion to the next failure).
    /// - **Synchronous failures** retried by a synchronous trigger run in a loop, not
    ///   recursively: any number of them runs in constant stack depth.
    /// - **Cancelling** the subscription cancels the running attempt and the trigger.
    ///
    /// RxSwift: `retry(when:)` (formerly `retryWhen`); Combine: (none).
    public func retry<Trigger: Sendable>(
        when handler: @escaping @Sendable (_ failures: Flow<Failure, Never>) -> Flow<Trigger, Failure>
    ) -> Flow {
        let upstream = self
        return Flow { subscriber in
            RetryWhenRun(upstream: upstream, downstream: subscriber).start(trigger: handler)
        }
    }
}

/// One subscription of `retry(when:)`: the attempts' events and the trigger's go through one
/// `SerialDrain`, so ``handle(_:)`` sees them one at a time, and an attempt that a trigger
/// value starts from inside the drain delivers its own events (a synchronous failure) to the
/// queue, not recursively.
///
/// Unchecked: `drain` is written once, in `init`, before any source can see the object; the
/// `waiting` and `pendingEnd` state is touched only by ``handle(_:)``, which the drain runs one
/// call at a time; `attempt` is behind its lock.
final class RetryWhenRun<Element: Sendable, Failure: Error>: @unchecked Sendable {
    enum Event: Sendable {
        case value(Element)
        case attemptEnded(FlowCompletion<Failure>)
        case trigger
        case triggerEnded(FlowCompletion<Failure>)
    }

    private let upstream: Flow<Element, Failure>
    private let downstream: FlowSubscriber<Element, Failure>
    private let failures = LiveSubject<Failure, Never>()
    private let triggerSubscription: FlowSubscription
    /// The running attempt's subscription; `cancelled` once the run ended or was cancelled.
    private let attempt = Lock<(current: FlowSubscription?, cancelled: Bool)>.make((nil, false))
    private var drain: SerialDrain<Event>!
    /// A failure waits for a trigger value.
    private var waiting = false
    /// The trigger's completion, come while an attempt ran: it ends the run at the next failure.
    private var pendingEnd: FlowCompletion<Failure>?

    init(upstream: Flow<Element, Failure>, downstream: FlowSubscriber<Element, Failure>) {
        self.upstream = upstream
        self.downstream = downstream
        self.triggerSubscription = downstream.subscription.child()
        // The drain holds `self` until it is closed (at the end or on cancellation).
        self.drain = SerialDrain { _, event in self.handle(event) }
    }

    /// Subscribes the trigger, then the first attempt.
    func start<Trigger>(trigger handler: @Sendable (Flow<Failure, Never>) -> Flow<Trigger, Failure>) {
        let drain = drain!
        downstream.subscription.onCancel { [attempt] in
            drain.close()
            Self.cancelAttempt(attempt)
        }
        handler(failures.flow).run(FlowSubscriber(
            subscription: triggerSubscription,
            receive: { _ in drain.submit(.trigger) ? .more : .stop },
            complete: { drain.submit(.triggerEnded($0)) }
        ))
        startAttempt()
    }

    private func startAttempt() {
        let subscription = FlowSubscription()
        let (admitted, previous) = attempt.withLock { state -> (Bool, FlowSubscription?) in
            guard !state.cancelled else { return (false, nil) }
            defer { state.current = subscription }
            return (true, state.current)
        }
        _ = previous  // released here, outside the lock
        guard admitted else { return }
        let drain = drain!
        upstream.run(FlowSubscriber(
            subscription: subscription,
            receive: { drain.submit(.value($0)) ? .more : .stop },
            complete: { drain.submit(.attemptEnded($0)) }
        ))
    }

    private static func cancelAttempt(_ attempt: Lock<(current: FlowSubscription?, cancelled: Bool)>) {
        let current = attempt.withLock { state -> FlowSubscription? in
            state.cancelled = true
            defer { state.current = nil }
            return state.current
        }
        current?.cancel()
    }

    private func handle(_ event: Event) {
        switch event {
        case .value(let value):
            if downstream.receive(value) == .stop { end(nil) }
        case .attemptEnded(.finished):
            end(.finished)
        case .attemptEnded(.failure(let error)):
            if let pendingEnd { return end(pendingEnd) }
            waiting = true
            failures.send(error)
        case .trigger:
            guard waiting else { return }
            waiting = false
            startAttempt()
        case .triggerEnded(let completion):
            if waiting { end(completion) } else { pendingEnd = completion }
        }
    }

    /// Cancels the attempt and the trigger, drops pending events, and completes downstream
    /// (when a completion is given).
    private func end(_ completion: FlowCompletion<Failure>?) {
        drain.close()
        Self.cancelAttempt(attempt)
        triggerSubscription.cancel()
        if let completion { downstream.complete(completion) }
    }
}
