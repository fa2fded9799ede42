extension Flow {
    /// Resubscribes after a failure when the flow that `handler` makes from the failures sends
    /// a value; that flow's completion ends the result with the same completion.
    ///
    /// ```swift
    /// let users = api.users.retry { failures in
    ///     failures.setFailureType(to: APIError.self).flatMapWithIndex { error, index in
    ///         index < 3 && error.isTransient ? reachability.online.first() : .fail(error)
    ///     }
    /// }
    /// ```
    ///
    /// RxSwift: `retry(when:)`; Combine: none.
    ///
    /// `handler` runs once per subscription; each failure waits for the trigger's next value.
    /// Trigger values sent while an attempt runs are ignored. The trigger's completion ends the
    /// result (at once if a failure waits; otherwise the running attempt's failure is not
    /// retried). Synchronous retries run in constant stack depth. Cancelling cancels the attempt
    /// and the trigger.
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
/// `SerialDrain`, so ``handle(_:)`` sees them one at a time. A trigger value only asks for the
/// next attempt; the thread that delivered it starts it once out of the drain (so that a
/// synchronous attempt's values reach the subscriber as they come, and it stops when the
/// subscriber wants no more), in a loop with the attempts that fail synchronously while they
/// start, not recursively.
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
    /// The running attempt's subscription; `cancelled` once the run ended or was cancelled;
    /// `requested`: a trigger value asked for the next attempt; `starting`: a thread is
    /// starting attempts (``startRequestedAttempts()``).
    private let attempt = Lock<AttemptState>.make(AttemptState())
    private var drain: SerialDrain<Event>!
    /// A failure waits for a trigger value.
    private var waiting = false
    /// The trigger's completion, come while an attempt ran: it ends the run at the next failure.
    private var pendingEnd: FlowCompletion<Failure>?

    struct AttemptState {
        var current: FlowSubscription?
        var cancelled = false
        var requested = false
        var starting = false
    }

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
            receive: { [weak self] _ in self?.submit(.trigger) == true ? .more : .stop },
            complete: { [weak self] in _ = self?.submit(.triggerEnded($0)) }
        ))
        attempt.withLock { $0.requested = true }  // the first attempt, once the trigger is subscribed
        startRequestedAttempts()
    }

    /// Submits `event` to the drain, then starts the attempts it asked for. The sources hold
    /// `self` weakly: the drain holds it until it is closed, as before any source could.
    private func submit(_ event: Event) -> Bool {
        defer { startRequestedAttempts() }
        return drain.submit(event)
    }

    /// Starts the requested attempts, one after another, unless a thread delivers (this one,
    /// further up its stack, or another: it starts them once it has delivered) or starts
    /// attempts (further up this stack, when an attempt failed while it started: the loop
    /// there starts the next one).
    private func startRequestedAttempts() {
        while !drain.isDelivering, attempt.withLock({ state -> Bool in
            guard state.requested, !state.starting else { return false }
            state.requested = false
            state.starting = true
            return true
        }) {
            startAttempt()
            attempt.withLock { $0.starting = false }
        }
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
        upstream.run(FlowSubscriber(
            subscription: subscription,
            receive: { [weak self] in self?.submit(.value($0)) == true ? .more : .stop },
            complete: { [weak self] in _ = self?.submit(.attemptEnded($0)) }
        ))
    }

    private static func cancelAttempt(_ attempt: Lock<AttemptState>) {
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
            attempt.withLock { $0.requested = true }  // started once out of the drain
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
