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
    /// `handler` runs once per subscription; each failure waits for the trigger's next value,
    /// and trigger values sent while an attempt runs are ignored. The trigger's completion ends
    /// the result at once if a failure waits; otherwise the running attempt's failure is not
    /// retried. Synchronous retries run in constant stack depth. Cancelling cancels the attempt
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

/// One subscription of `retry(when:)`: a ``FanIn`` whose one source is the trigger and whose
/// drain also takes the attempts' events, so `handle` sees all of them one at a time. A trigger
/// value only requests the next attempt, started out of the drain (``RetryWhenAttempts``) so that
/// a synchronous attempt's values reach the subscriber as they come, and it stops when the
/// subscriber wants no more.
struct RetryWhenRun<Element: Sendable, Failure: Error>: Sendable {
    enum Event: Sendable {
        case value(Element)
        case attemptEnded(FlowCompletion<Failure>)
        case trigger
        case triggerEnded(FlowCompletion<Failure>)
    }

    typealias Serial = FanIn<Event, Element, Failure>

    /// The handler's state, touched only by `handle`.
    struct Waiting: Sendable {
        /// A failure waits for a trigger value.
        var failure = false
        /// The trigger's completion, come while an attempt ran: it ends the run at the next failure.
        var pendingEnd: FlowCompletion<Failure>?
    }

    let serial: Serial
    let attempts: RetryWhenAttempts<Element, Failure>
    let failures: LiveSubject<Failure, Never>

    init(upstream: Flow<Element, Failure>, downstream: FlowSubscriber<Element, Failure>) {
        let attempts = RetryWhenAttempts(upstream: upstream)
        let failures = LiveSubject<Failure, Never>()
        let waiting = SerialState(Waiting())
        serial = Serial(downstream: downstream, sourceCount: 1) { serial, event in
            Self.handle(event, serial: serial, attempts: attempts, failures: failures, waiting: waiting)
        }
        self.attempts = attempts
        self.failures = failures
        downstream.subscription.onCancel { attempts.cancel() }
    }

    /// Subscribes the trigger, then the first attempt.
    func start<Trigger>(trigger handler: @Sendable (Flow<Failure, Never>) -> Flow<Trigger, Failure>) {
        handler(failures.flow).run(FlowSubscriber(
            subscription: serial.sources[0],
            receive: { [serial, attempts] _ in attempts.submit(.trigger, to: serial) },
            complete: { [serial, attempts] in _ = attempts.submit(.triggerEnded($0), to: serial) }
        ))
        attempts.request()  // the first attempt, once the trigger is subscribed
        attempts.startRequested(into: serial)
    }

    private static func handle(
        _ event: Event,
        serial: Serial,
        attempts: RetryWhenAttempts<Element, Failure>,
        failures: LiveSubject<Failure, Never>,
        waiting: SerialState<Waiting>
    ) {
        switch event {
        case .value(let value):
            if !serial.send(value) { attempts.cancel() }
        case .attemptEnded(.finished):
            end(.finished, serial: serial, attempts: attempts)
        case .attemptEnded(.failure(let error)):
            if let pendingEnd = waiting.value.pendingEnd { return end(pendingEnd, serial: serial, attempts: attempts) }
            waiting.value.failure = true
            failures.send(error)
        case .trigger:
            guard waiting.value.failure else { return }
            waiting.value.failure = false
            attempts.request()  // started once out of the drain
        case .triggerEnded(let completion):
            if waiting.value.failure {
                end(completion, serial: serial, attempts: attempts)
            } else {
                waiting.value.pendingEnd = completion
            }
        }
    }

    /// Cancels the attempt, then ends the fan-in: the trigger cancelled, pending events
    /// dropped, downstream completed (when a completion is given).
    private static func end(_ completion: FlowCompletion<Failure>?, serial: Serial, attempts: RetryWhenAttempts<Element, Failure>) {
        attempts.cancel()
        serial.end(completion)
    }
}

/// The attempts of a `retry(when:)` subscription, each with a subscription of its own (a child
/// of downstream's would pile up one cancel action per attempt). They start out of the drain,
/// once the event that requested them is delivered, in a loop rather than recursively.
final class RetryWhenAttempts<Element: Sendable, Failure: Error>: Sendable {
    /// `current`: the running attempt's subscription; `cancelled` once the run ended or was
    /// cancelled; `requested`: a trigger value asked for the next attempt; `starting`: a thread
    /// is starting attempts (``startRequested(into:)``).
    struct State {
        var current: FlowSubscription?
        var cancelled = false
        var requested = false
        var starting = false
    }

    private let upstream: Flow<Element, Failure>
    private let state = Lock<State>.make(State())

    init(upstream: Flow<Element, Failure>) {
        self.upstream = upstream
    }

    /// From the handler: the next attempt starts once the event being delivered has been.
    func request() {
        state.withLock { $0.requested = true }
    }

    /// Submits `event` to `serial`, then starts the attempts it asked for.
    func submit(_ event: RetryWhenRun<Element, Failure>.Event, to serial: RetryWhenRun<Element, Failure>.Serial) -> FlowDemand {
        defer { startRequested(into: serial) }
        return serial.submit(event)
    }

    /// Starts the requested attempts one after another, unless a thread is delivering (it starts
    /// them once it has delivered) or already starting them further up this stack (its loop will).
    func startRequested(into serial: RetryWhenRun<Element, Failure>.Serial) {
        while !serial.drain.isDelivering, state.withLock({ state -> Bool in
            guard state.requested, !state.starting else { return false }
            state.requested = false
            state.starting = true
            return true
        }) {
            start(into: serial)
            state.withLock { $0.starting = false }
        }
    }

    private func start(into serial: RetryWhenRun<Element, Failure>.Serial) {
        let subscription = FlowSubscription()
        let (admitted, previous) = state.withLock { state -> (Bool, FlowSubscription?) in
            guard !state.cancelled else { return (false, nil) }
            defer { state.current = subscription }
            return (true, state.current)
        }
        _ = previous  // released here, outside the lock
        guard admitted else { return }
        upstream.run(FlowSubscriber(
            subscription: subscription,
            receive: { [self] in submit(.value($0), to: serial) },
            complete: { [self] in _ = submit(.attemptEnded($0), to: serial) }
        ))
    }

    /// Cancels the running attempt; no attempt starts after this.
    func cancel() {
        let current = state.withLock { state -> FlowSubscription? in
            state.cancelled = true
            defer { state.current = nil }
            return state.current
        }
        current?.cancel()
    }
}
