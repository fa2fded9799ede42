/// One subscription of a flatMap-family flow: the lock-guarded ``FlatMapStateMachine`` and the
/// downstream subscriber it decides deliveries for.
///
/// The lock rule: events are decided under the lock, and everything they lead to — the user's
/// transform, subscribing and cancelling flows, delivering downstream, releasing what the
/// subscription held — happens after unlocking.
///
/// References: the outer flow runs under a child of the downstream subscription, whose cancel
/// action holds the machine (which holds the transform and the subscriptions, never this
/// storage). Each inner's subscriber holds this storage through its ``FlatMapInnerReceiver``
/// while its source keeps it. So a subscription whose sources keep nothing keeps nothing alive
/// but its transform, until it is cancelled.
@usableFromInline
final class FlatMapStorage<Element: Sendable, NewElement: Sendable, Failure: Error>: Sendable {
    @usableFromInline
    typealias Machine = FlatMapStateMachine<Element, NewElement, Failure>

    @usableFromInline let machine: Lock<Machine>
    @usableFromInline let downstream: FlowSubscriber<NewElement, Failure>
    @usableFromInline let outer: FlowSubscription
    @usableFromInline let isLatest: Bool

    @inlinable
    init(strategy: FlatMapStrategy, transform: @escaping Machine.Transform, downstream: FlowSubscriber<NewElement, Failure>) {
        let outer = downstream.subscription.child()
        let machine = Lock.make(Machine(strategy: strategy, transform: transform, outer: outer))
        self.machine = machine
        self.downstream = downstream
        self.outer = outer
        if case .latest = strategy { isLatest = true } else { isLatest = false }
        downstream.subscription.onCancel { Self.cancel(machine) }
    }

    /// Subscribes to the outer flow.
    @inlinable
    func subscribe(to upstream: Flow<Element, Failure>) {
        upstream.run(FlowSubscriber(
            subscription: outer,
            receive: { self.outerValue($0) },
            completeMarkingSubscription: { self.outerCompleted($0) }
        ))
    }

    @inlinable
    func outerValue(_ value: Element) -> FlowDemand {
        let (action, replaced) = machine.withLock { $0.outerValue(value) }
        replaced?.cancel()
        return perform(action)
    }

    @inlinable
    func outerCompleted(_ completion: FlowCompletion<Failure>) {
        outer.complete()  // release the outer source's cancel actions: it ended on its own
        perform(machine.withLock { $0.outerCompleted(completion) })
    }

    /// Does what the machine decided. Returns `.stop` once the subscription has ended, so a
    /// synchronous outer source stops.
    @inlinable
    @discardableResult
    func perform(_ action: consuming Machine.Action) -> FlowDemand {
        switch consume action {
        case .none:
            return .more
        case .start(let start):
            return startInners(start)
        case .end(let teardown):
            teardown.cancelSubscriptions()
            return .stop
        case .complete(let teardown, let completion):
            end(teardown, completion)
            downstream.complete(completion)
            return .stop
        case .completeLater(let teardown, let completion):
            end(teardown, completion)
            return .stop
        }
    }

    /// A failure cancels what still runs; a finish has nothing left to cancel. The teardown is
    /// released by the caller, unlocked.
    @inlinable
    func end(_ teardown: Machine.Teardown, _ completion: FlowCompletion<Failure>) {
        if case .failure = completion { teardown.cancelSubscriptions() }
    }

    /// The start loop: subscribes `first`, then whatever the machine says is next.
    @inlinable
    func startInners(_ first: Machine.Start) -> FlowDemand {
        var start = first
        while true {
            subscribe(start)
            if isLatest { return .more }  // nothing waits: no loop
            let action = machine.withLock { $0.startReturned() }
            guard case .start(let next) = action else { return perform(action) }
            start = next
        }
    }

    @inlinable
    func subscribe(_ start: Machine.Start) {
        let receiver = FlatMapInnerReceiver(storage: self, id: start.id, subscription: start.subscription)
        start.transform(start.value).run(FlowSubscriber(
            subscription: start.subscription,
            receive: { receiver.receive($0) },
            completeMarkingSubscription: { receiver.complete($0) }
        ))
    }

    @inlinable
    func innerValue(_ value: NewElement, from id: UInt64) -> FlowDemand {
        switch machine.withLock({ $0.innerValue(value, from: id) }) {
        case .deliver(let value):
            return deliver(value, for: id)
        case .queued:
            return .more
        case .drop:
            return .stop
        }
    }

    /// Delivers `first`, then whatever other threads queued meanwhile.
    @inlinable
    func deliver(_ first: NewElement, for id: UInt64) -> FlowDemand {
        var next = first
        while true {
            if downstream.receive(next) == .stop {
                perform(machine.withLock { $0.cancel() })
                return .stop
            }
            switch machine.withLock({ $0.delivered(for: id) }) {
            case .deliver(let value):
                next = value
            case .complete(let completion):
                downstream.complete(completion)
                return .stop
            case .idle(let more):
                return more ? .more : .stop
            }
        }
    }

    @inlinable
    func innerFinished(_ id: UInt64) {
        perform(machine.withLock { $0.innerFinished(id) })
    }

    @inlinable
    func innerFailed(_ id: UInt64, _ error: Failure) {
        perform(machine.withLock { $0.innerFailed(id, error) })
    }

    /// Downstream cancelled.
    @inlinable
    static func cancel(_ machine: Lock<Machine>) {
        let action = machine.withLock { $0.cancel() }
        if case .end(let teardown) = action { teardown.cancelSubscriptions() }
    }
}

/// One inner subscription's receiving end: what its subscriber's two closures capture (and
/// nothing else, so they need no context of their own).
@usableFromInline
final class FlatMapInnerReceiver<Element: Sendable, NewElement: Sendable, Failure: Error>: Sendable {
    @usableFromInline let storage: FlatMapStorage<Element, NewElement, Failure>
    @usableFromInline let id: UInt64
    @usableFromInline let subscription: FlowSubscription

    @inlinable
    init(storage: FlatMapStorage<Element, NewElement, Failure>, id: UInt64, subscription: FlowSubscription) {
        self.storage = storage
        self.id = id
        self.subscription = subscription
    }

    @inlinable
    func receive(_ value: NewElement) -> FlowDemand {
        storage.innerValue(value, from: id)
    }

    @inlinable
    func complete(_ completion: FlowCompletion<Failure>) {
        subscription.complete()  // releases the source's cancel actions: it ended on its own
        switch completion {
        case .finished: storage.innerFinished(id)
        case .failure(let error): storage.innerFailed(id, error)
        }
    }
}
