/// One subscription of a flatMap-family flow: the lock-guarded ``FlatMapStateMachine`` and the
/// downstream subscriber it decides deliveries for.
///
/// Lock rule: events are decided under the lock; what they lead to (the user's transform,
/// subscribing and cancelling flows, delivering downstream, releasing what the subscription
/// held) happens after unlocking.
///
/// References: the downstream subscription's cancel action holds the machine (the transform and
/// the subscriptions, never this storage); the outer flow runs under a child of that
/// subscription; each inner's subscriber holds this storage through its ``FlatMapInnerReceiver``
/// while its source keeps it. So a subscription whose sources keep nothing keeps nothing alive
/// but its transform (and the ended subscription of its last inner, which holds nothing), until
/// it is cancelled.
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

    /// The start loop: subscribes `first`, then whatever the machine says is next. An inner that
    /// finished during its own subscribe is reported by the starter (``FlatMapInnerFinish``).
    @inlinable
    func startInners(_ first: consuming Machine.Start) -> FlowDemand {
        var start = first
        while true {
            if isLatest {  // nothing waits: no loop, and the inner reports its own finish
                subscribe(start, reportsOwnFinish: true)
                return .more
            }
            let finished = subscribe(start, reportsOwnFinish: false)
            let action = machine.withLock { $0.startReturned(finishing: finished ? start.id : nil) }
            switch consume action {
            case .start(let next): start = next
            case .none: return .more  // the common end of the loop, without a call
            case let action: return perform(action)
            }
        }
    }

    /// Subscribes the inner of `start`. Returns whether it finished during the subscribe and
    /// left the report of its finish to the starter (never when `reportsOwnFinish`).
    @inlinable
    @inline(__always)
    @discardableResult
    func subscribe(_ start: Machine.Start, reportsOwnFinish: Bool) -> Bool {
        let receiver = FlatMapInnerReceiver(storage: self, id: start.id, subscription: start.subscription, subscribing: !reportsOwnFinish)
        start.transform(start.value).run(FlowSubscriber(
            subscription: start.subscription,
            receive: { receiver.receive($0) },
            completeMarkingSubscription: { receiver.complete($0) }
        ))
        return !reportsOwnFinish && receiver.finish.subscribeReturned()
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
    /// Who reports the inner's finish: the starter, if it came during the subscribe.
    @usableFromInline let finish: FlatMapInnerFinish

    /// `subscribing`: the starter calls ``FlatMapInnerFinish/subscribeReturned()`` once its
    /// subscribe returns; otherwise the inner reports its own finish.
    @inlinable
    init(storage: FlatMapStorage<Element, NewElement, Failure>, id: UInt64, subscription: FlowSubscription, subscribing: Bool) {
        self.storage = storage
        self.id = id
        self.subscription = subscription
        self.finish = FlatMapInnerFinish(subscribing: subscribing)
    }

    @inlinable
    func receive(_ value: NewElement) -> FlowDemand {
        storage.innerValue(value, from: id)
    }

    @inlinable
    func complete(_ completion: FlowCompletion<Failure>) {
        subscription.complete()  // releases the source's cancel actions: it ended on its own
        switch completion {
        case .finished: if finish.innerFinished() { storage.innerFinished(id) }  // else the starter reports it
        case .failure(let error): storage.innerFailed(id, error)
        }
    }
}

/// Which thread reports an inner's finish: the inner's own, or, if it finished while its starter
/// was still in its subscribe, the starter, with its return (one trip through the lock, not two:
/// ``FlatMapStateMachine/startReturned(finishing:)``). Exactly one reports: the first of the two
/// calls to change the word decides.
///
/// ```swift
/// let finish = FlatMapInnerFinish(subscribing: true)
/// // the inner's thread:                      the starter, once the subscribe returned:
/// if finish.innerFinished() { report() }      if finish.subscribeReturned() { report() }
/// ```
@usableFromInline
struct FlatMapInnerFinish: ~Copyable, Sendable {
    @usableFromInline static var subscribing: UInt { 0 }
    @usableFromInline static var returned: UInt { 1 }
    @usableFromInline static var finishedDuringSubscribe: UInt { 2 }

    @usableFromInline let state: AtomicWord

    @inlinable
    init(subscribing: Bool) {
        state = AtomicWord(subscribing ? Self.subscribing : Self.returned)
    }

    /// The inner finished: whether its thread reports it (`false`: the starter will).
    @inlinable
    func innerFinished() -> Bool {
        state.compareExchange(expected: Self.subscribing, desired: Self.finishedDuringSubscribe) != Self.subscribing
    }

    /// The starter returned from the subscribe: whether it reports the inner's finish. Once.
    @inlinable
    func subscribeReturned() -> Bool {
        let found = state.compareExchange(expected: Self.subscribing, desired: Self.returned)
        if found == Self.returned {
            preconditionFailure("Internal inconsistency: an inner's subscribe returned twice")
        }
        return found == Self.finishedDuringSubscribe
    }
}
