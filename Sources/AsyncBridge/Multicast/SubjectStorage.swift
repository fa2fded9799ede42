/// The machinery behind every subject and relay: `LiveSubject` is a storage with no
/// buffer, `LatestValueSubject` one with a buffer of one, `ReplayingSubject` one with a buffer of
/// `bufferSize`, and the relays are the same storages that are never completed.
///
/// The decisions are taken by ``SubjectStateMachine`` under the lock; delivering happens
/// here, after unlocking, on whichever thread the state machine made the deliverer.
///
/// ```swift
/// let storage = SubjectStorage<Int, Never>(bufferSize: 1, initial: [0])
/// storage.flow.subscribe(onValue: { print($0) }, onCompletion: { _ in })   // 0
/// storage.send(1)                                  // 1
/// ```
@usableFromInline
final class SubjectStorage<Element: Sendable, Failure: Error>: Sendable {
    @usableFromInline typealias Machine = SubjectStateMachine<Element, Failure>
    @usableFromInline typealias Subscriber = SubjectSubscriber<Element, Failure>
    @usableFromInline typealias Subscribers = SubjectSubscriberList<Element, Failure>

    @usableFromInline let state: Lock<Machine>

    /// - Parameters:
    ///   - bufferSize: how many of the latest values a new subscriber receives first.
    ///   - initial: the values the buffer starts with (a behavior subject's initial value).
    ///   - replaysAfterCompletion: whether a subscriber that arrives after the completion
    ///     gets the buffer before it, or the completion alone.
    @inlinable
    init(bufferSize: Int, initial: [Element] = [], replaysAfterCompletion: Bool = true) {
        state = .make(Machine(bufferSize: bufferSize, initial: initial, replaysAfterCompletion: replaysAfterCompletion))
    }

    /// The hot flow over this storage: subscribing joins the subject.
    @inlinable
    var flow: Flow<Element, Failure> {
        Flow { [self] subscriber in subscribe(subscriber) }
    }

    /// Sends `value` to every subscriber; ignored after the completion.
    ///
    /// When nobody else is delivering: one critical section to accept the value and become
    /// the deliverer, the deliveries with no lock held, one to find the queue empty.
    @inlinable
    func send(_ value: Element) {
        let (recipients, evicted) = state.withLock { $0.send(value) }
        _ = evicted  // released here, outside the lock
        guard let recipients else { return }
        deliver(value, to: recipients)
        let (next, retired) = state.withLock { $0.next() }
        _ = retired  // released here, outside the lock
        if case .none = next { return }
        perform(next)
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
    @inlinable
    func subscribe(_ downstream: FlowSubscriber<Element, Failure>) {
        // Registered first, so that a cancellation from now on removes it, even one that comes
        // before its subscription event is queued or while another thread delivers its replay.
        let subscriber = state.withLock { $0.register(downstream) }
        // Weak: the subscription must not keep the subject alive. By identity, not by a weak
        // reference to the subscriber (the subscriber holds the subscription, which holds this
        // action): an object that is weakly referenced costs more to retain and release, on
        // every delivery.
        let id = subscriber.id
        let storage = WeakReference(self)
        downstream.subscription.onCancel { storage.object?.remove(id) }
        let (action, replaced) = state.withLock { $0.subscribeJoiningAtOnce(subscriber) }
        _ = replaced  // released here, outside the lock
        perform(action)
    }

    /// Stops delivering to the subscriber `id` and lets it go.
    @inlinable
    func remove(_ id: SubjectSubscriberID) {
        let (removed, list) = state.withLock { $0.remove(id) }
        _ = (removed, list)  // released here, outside the lock
    }

    /// Delivers events for as long as the state machine hands this thread one.
    @inlinable @inline(never)
    func perform(_ action: Machine.Action) {
        var action = action
        while case .deliver(let event, let recipients) = action {
            deliver(event, to: recipients)
            let retired: Subscribers?
            (action, retired) = state.withLock { $0.next() }
            _ = retired  // released here, outside the lock
        }
    }

    /// `recipients`: the lent list, for a value or the completion.
    @inlinable
    func deliver(_ event: Machine.Event, to recipients: Unmanaged<Subscribers>?) {
        switch event {
        case .value(let value):
            deliver(value, to: recipients!)
        case .completion(let completion):
            finish(recipients!, with: completion)
        case .subscription(let subscriber, let replay, let completion):
            join(subscriber, replay: replay, completion: completion)
        }
    }

    /// Delivers a value: no lock per subscriber. A subscriber removed since the value was
    /// taken is skipped when the removal came from this thread (a handler); see
    /// ``SubjectStateMachine/remove(_:)``.
    @inlinable
    func deliver(_ value: Element, to recipients: Unmanaged<Subscribers>) {
        recipients._withUnsafeGuaranteedRef { recipients in
            recipients.forEach { subscriber in
                if subscriber.isRemovedDuringDelivery { return }
                if subscriber.downstream.receive(value) == .stop { remove(subscriber.id) }
            }
        }
    }

    /// Delivers the completion, then lets every subscriber go.
    @inlinable
    func finish(_ recipients: Unmanaged<Subscribers>, with completion: FlowCompletion<Failure>) {
        recipients._withUnsafeGuaranteedRef { recipients in
            recipients.forEach { subscriber in
                if !subscriber.isRemovedDuringDelivery { subscriber.downstream.complete(completion) }
            }
        }
        let released = state.withLock { $0.completionDelivered() }
        _ = released  // released here, outside the lock
    }

    /// A new subscriber's turn in the queue: its replay, then the completion or joining.
    /// Checked under the lock before each replayed value: a cancellation from any thread
    /// stops the replay (this is once per subscription, not per send).
    @inlinable
    func join(_ subscriber: Subscriber, replay: [Element], completion: FlowCompletion<Failure>?) {
        for value in replay {
            guard state.withLock({ $0.isJoining(subscriber) }) else { return }
            if subscriber.downstream.receive(value) == .stop {
                remove(subscriber.id)
                return
            }
        }
        if let completion {
            if state.withLock({ $0.leave(subscriber) }) { subscriber.downstream.complete(completion) }
        } else {
            let replaced = state.withLock { $0.admit(subscriber) }
            _ = replaced  // released here, outside the lock
        }
    }
}

/// One subscriber as a subject holds it: its identity, the downstream, and a mark for the
/// deliverer.
///
/// ```swift
/// let subscriber = SubjectSubscriber(downstream, id: table.register())
/// if !subscriber.isRemovedDuringDelivery { _ = subscriber.downstream.receive(1) }
/// ```
@usableFromInline
final class SubjectSubscriber<Element, Failure: Error>: Sendable {
    /// Unique within its subject; the subscription's cancel action removes it by this.
    @usableFromInline let id: SubjectSubscriberID
    @usableFromInline let downstream: FlowSubscriber<Element, Failure>
    /// Set, under the subject's lock, when it is removed by the thread delivering an event
    /// it is a recipient of (a handler cancelled it); read by that thread, without the lock,
    /// before each delivery of that event. No other thread touches it (see
    /// ``SubjectStateMachine/remove(_:)``), so it needs no lock of its own. (A ``hole()`` has
    /// it set before any thread sees it.)
    @exclusivity(unchecked)
    @usableFromInline nonisolated(unsafe) var isRemovedDuringDelivery = false

    @inlinable
    init(_ downstream: FlowSubscriber<Element, Failure>, id: SubjectSubscriberID) {
        self.downstream = downstream
        self.id = id
    }

    /// What fills the position of a subscriber that left (see ``SubjectSubscriberTable``):
    /// marked removed, so the deliverer skips it. Its downstream is never called.
    @inlinable
    static func hole() -> SubjectSubscriber {
        let downstream = FlowSubscriber<Element, Failure>(
            subscription: FlowSubscription(),
            receive: { _ in .stop },
            completeMarkingSubscription: { _ in }
        )
        let hole = SubjectSubscriber(downstream, id: SubjectSubscriberID(slot: -1, serial: 0))
        hole.isRemovedDuringDelivery = true
        return hole
    }
}
