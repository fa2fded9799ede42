/// The machinery behind every subject and relay: `PublishSubject` is a storage with no
/// buffer, `BehaviorSubject` one with a buffer of one, `ReplaySubject` one with a buffer of
/// `bufferSize`, and the relays are the same storages that are never completed.
///
/// The decisions are taken by ``SubjectStateMachine`` under the lock; delivering happens
/// here, after unlocking, on whichever thread the state machine made the deliverer.
///
/// ```swift
/// let storage = SubjectStorage<Int, Never>(bufferSize: 1, initial: [0])
/// storage.flow.subscribe(onValue: { print($0) })   // 0
/// storage.send(1)                                  // 1
/// ```
@usableFromInline
final class SubjectStorage<Element: Sendable, Failure: Error>: Sendable {
    @usableFromInline typealias Machine = SubjectStateMachine<Element, Failure>
    @usableFromInline typealias Subscriber = SubjectSubscriber<Element, Failure>

    @usableFromInline let state: Lock<Machine>

    /// - Parameters:
    ///   - bufferSize: how many of the latest values a new subscriber receives first.
    ///   - initial: the values the buffer starts with (a behavior subject's initial value).
    ///   - replaysAfterCompletion: whether a subscriber that arrives after the completion
    ///     gets the buffer before it, or the completion alone.
    @usableFromInline
    init(bufferSize: Int, initial: [Element] = [], replaysAfterCompletion: Bool = true) {
        state = .make(Machine(bufferSize: bufferSize, initial: initial, replaysAfterCompletion: replaysAfterCompletion))
    }

    /// The hot flow over this storage: subscribing joins the subject.
    @usableFromInline
    var flow: Flow<Element, Failure> {
        Flow { [self] subscriber in subscribe(subscriber) }
    }

    /// Sends `value` to every subscriber; ignored after the completion.
    @inlinable
    func send(_ value: Element) {
        let (action, evicted) = state.withLock { $0.send(value) }
        _ = evicted  // released here, outside the lock
        perform(action)
    }

    /// Completes every subscriber; only the first completion counts.
    @inlinable
    func complete(_ completion: FlowCompletion<Failure>) {
        perform(state.withLock { $0.complete(completion) })
    }

    /// The latest value in the buffer (a behavior subject's current value).
    @inlinable
    var latest: Element? {
        state.withLock { $0.buffer.last }
    }

    /// Adds a subscriber; its replay is queued behind whatever is being delivered.
    @usableFromInline
    func subscribe(_ downstream: FlowSubscriber<Element, Failure>) {
        let subscriber = Subscriber(downstream)
        // Weak both ways: the subscription must keep neither the subject nor the subscriber
        // alive (the subscriber holds the subscription, which holds this action).
        downstream.subscription.onCancel { [weak self, weak subscriber] in
            guard let self, let subscriber else { return }
            remove(subscriber)
        }
        perform(state.withLock { $0.subscribe(subscriber) })
    }

    /// Stops delivering to `subscriber` and lets it go.
    @usableFromInline
    func remove(_ subscriber: Subscriber) {
        state.withLock { $0.remove(subscriber) }
    }

    /// Delivers events for as long as the state machine hands this thread one.
    @inlinable
    func perform(_ action: Machine.Action) {
        var action = action
        while case .deliver(let event, let subscribers) = action {
            deliver(event, to: subscribers)
            action = state.withLock { $0.next() }
        }
    }

    @inlinable
    func deliver(_ event: Machine.Event, to subscribers: [Subscriber]) {
        switch event {
        case .value(let value):
            for subscriber in subscribers where subscriber.isActive {
                if subscriber.downstream.receive(value) == .stop { remove(subscriber) }
            }
        case .completion(let completion):
            for subscriber in subscribers where subscriber.deactivate() {
                subscriber.downstream.complete(completion)
            }
        case .subscription(let subscriber, let replay, let completion):
            join(subscriber, replay: replay, completion: completion)
        }
    }

    /// A new subscriber's turn in the queue: its replay, then the completion or joining.
    @usableFromInline
    func join(_ subscriber: Subscriber, replay: [Element], completion: FlowCompletion<Failure>?) {
        for value in replay {
            guard subscriber.isActive else { return }
            if subscriber.downstream.receive(value) == .stop {
                remove(subscriber)
                return
            }
        }
        if let completion {
            if subscriber.deactivate() { subscriber.downstream.complete(completion) }
        } else {
            state.withLock { $0.admit(subscriber) }
        }
    }
}

/// One subscriber as a subject holds it: the downstream, and whether it may still receive.
///
/// The flag is checked before each delivery, so a subscriber cancelled by a handler (its own
/// or another subscriber's) gets nothing more, not even the rest of the current send.
///
/// ```swift
/// let subscriber = SubjectSubscriber(downstream)
/// if subscriber.isActive { _ = subscriber.downstream.receive(1) }
/// ```
@usableFromInline
final class SubjectSubscriber<Element, Failure: Error>: Sendable {
    @usableFromInline let downstream: FlowSubscriber<Element, Failure>
    @usableFromInline let active = Lock.make(true)

    @usableFromInline
    init(_ downstream: FlowSubscriber<Element, Failure>) {
        self.downstream = downstream
    }

    /// Whether it has been neither cancelled nor completed.
    @inlinable
    var isActive: Bool {
        active.withLock { $0 }
    }

    /// Marks it inactive; returns whether it was active (so exactly one caller wins).
    @inlinable
    func deactivate() -> Bool {
        active.withLock { active in
            defer { active = false }
            return active
        }
    }
}
