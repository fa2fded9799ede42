/// What the flatMap family hands its serial drain: inner values (submitted with their inner's
/// id as the tag: when `flatMapLatest` switches, it raises the drain's floor to the new inner's
/// id, so that values of older inners sent from then on are dropped and never follow a value of
/// a newer one), and the one completion.
@usableFromInline
enum FlatMapDelivery<Element: Sendable, Failure: Error>: Sendable {
    case value(Element)
    case completion(FlowCompletion<Failure>)
}

/// One subscription of a flatMap-family flow: the lock-guarded ``FlatMapStateMachine``, and the
/// ``SerialDrain`` that serialises every downstream event (inners may emit on many threads at
/// once).
///
/// The lock rule: events are decided under the lock, and everything they lead to — the user's
/// transform, subscribing and cancelling flows, delivering downstream, releasing the transform —
/// happens after unlocking.
///
/// Subscriptions: the outer flow runs under a child of the downstream subscription. Inners run
/// under subscriptions of their own that the state machine tracks while they run; cancelling
/// downstream cancels them through the machine. (A `child()` per inner would leave one cancel
/// action per inner in the downstream subscription until it ends: unbounded growth for a
/// long-lived flow.)
///
/// Unchecked: its mutable state is the lock-guarded machine, and `latestSpare`, which only the
/// outer flow's deliveries use (one at a time, contract 3); the other stored properties are
/// `let`s of `Sendable` types.
@usableFromInline
final class FlatMapStorage<Element: Sendable, NewElement: Sendable, Failure: Error>: @unchecked Sendable {
    @usableFromInline
    typealias Machine = FlatMapStateMachine<Element, NewElement, Failure>

    @usableFromInline let strategy: FlatMapStrategy
    /// An inner that `flatMapLatest` replaced and may reuse (see ``switchLatest(_:)``). Here
    /// rather than in the machine, so that it is kept unlocked.
    @exclusivity(unchecked)
    @usableFromInline var latestSpare: Machine.Inner?
    @usableFromInline let machine: Lock<Machine>
    @usableFromInline let drain: SerialDrain<FlatMapDelivery<NewElement, Failure>>
    @usableFromInline let outer: FlowSubscription
    /// Referred to weakly by downstream's cancel action, instead of the drain itself.
    @usableFromInline let handle: FlatMapDrainHandle<NewElement, Failure>

    @inlinable
    init(
        strategy: FlatMapStrategy,
        transform: @escaping Machine.Transform,
        downstream: FlowSubscriber<NewElement, Failure>
    ) {
        let outer = downstream.subscription.child()
        let machine = Lock.make(Machine(strategy: strategy, transform: transform, outer: outer))
        // No reference cycles, and no weak references to the objects retained for every value
        // or inner (a weak reference moves an object's reference count to a side table, which
        // slows down each retain and release of it). The drain's receiver refers to the machine
        // (which does not refer to the drain), and is handed the drain itself by each call.
        // Downstream's cancel action refers to the machine, and weakly
        // to a handle on the drain that only this storage retains.
        let drain = SerialDrain<FlatMapDelivery<NewElement, Failure>> { drain, event in
            switch event {
            case .value(let value):
                if downstream.receive(value) == .stop { Self.cancel(machine, drain) }
            case .completion(let completion):
                drain.close()
                downstream.complete(completion)
            }
        }
        let handle = FlatMapDrainHandle(drain)
        self.strategy = strategy
        self.outer = outer
        self.machine = machine
        self.drain = drain
        self.handle = handle
        downstream.subscription.onCancel { [weak handle] in Self.cancel(machine, handle?.drain) }
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
        if case .latest = strategy { return switchLatest(value) }
        switch machine.withLock({ $0.outerValue(value) }) {
        case .none:
            return .more
        case .start(let start):
            return startInners(consume start)
        case .stop:
            return .stop
        }
    }

    /// `flatMapLatest`'s switch (``FlatMapStateMachine/switchLatest(to:spare:replacing:)``):
    /// the running inner is cancelled, then the new one subscribed; an inner registered before
    /// its subscribe costs a second trip through the machine only if it ended meanwhile.
    @inlinable
    @inline(__always)  // into `outerValue`: a call less per switch
    func switchLatest(_ value: Element) -> FlowDemand {
        var replaced: Machine.Receiver?
        guard var start = machine.withLock({ $0.switchLatest(to: value, spare: &latestSpare, replacing: &replaced) }) else {
            return .stop
        }
        if replaced != nil {
            // Values of older inners sent from now on are dropped: they never follow the new
            // inner's, and a source that sends them is told to stop.
            drain.raiseFloor(to: start.id)
            replaced?.cancel()
            reuse(&replaced)
        }
        guard start.registered else { return startInners(consume start) }
        subscribe(start)
        start.transform.release()  // the starter's reference, taken by the machine
        // Kept before the watch ends: from then on the inner may end on another thread, and the
        // lock of `endWatch` orders this write before that.
        start.inner?.receiver.keepStorage()
        let watch = start.inner?.receiver.endWatch()
        if watch == .active { return .more }
        // Ended during its subscribe: finished (then kept for the next inner, holding no
        // storage), or cancelled (by its own source's operators, or by the end of it all).
        let kept = start.inner?.receiver.storage.take()
        let (action, terminated) = machine.withLock { $0.registeredInnerEnded(&start.inner, finished: watch == .completed) }
        _ = kept  // released unlocked, as is `start.inner` if not kept
        if case .finish(let teardown) = action { finish(teardown) }
        return terminated ? .stop : .more
    }

    /// Keeps `replaced`, cancelled, for a later switch if nothing can call it back any more:
    /// its source kept nothing of its subscriber (`never`, or a source that let go of it as it
    /// was cancelled). No allocation then. Its subscription must be unreachable too: checked
    /// as well, as a source or operator may keep a subscription without its subscriber (to
    /// register a cancel action later, or to look whether it was cancelled), and would find a
    /// reused one active again.
    @inlinable
    func reuse(_ replaced: inout Machine.Receiver?) {
        guard isKnownUniquelyReferenced(&replaced), let reused = replaced,
              reused.subscription.isKnownUniquelyReferenced() else { return }
        reused.subscription.reactivate()
        reused.storage = nil  // as a spare holds none (and not the last reference)
        latestSpare = Machine.Inner(reused)
    }

    @inlinable
    func outerCompleted(_ completion: FlowCompletion<Failure>) {
        outer.complete()  // release the outer source's cancel actions: it ended on its own
        switch completion {
        case .finished:
            if let teardown = machine.withLock({ $0.outerFinished() }) { finish(teardown) }
        case .failure(let error):
            if let teardown = machine.withLock({ $0.terminate() }) { fail(teardown, error) }
        }
    }

    /// The start loop: subscribes `first`, then whatever the machine says is next. Returns
    /// `.stop` if the subscription ended meanwhile, so a synchronous outer source stops.
    @inlinable
    @discardableResult
    func startInners(_ first: consuming Machine.Start) -> FlowDemand {
        var start = first
        while true {
            subscribe(start)
            switch machine.withLock({ $0.startLoopContinues(&start.inner) }) {
            case .start(let next):
                start = next
            case .idle:
                return .more
            case .finish(let teardown):
                finish(teardown)
                return .stop
            case .ended(let transform):
                _ = transform  // released here, unlocked
                return .stop
            }
        }
    }

    /// Subscribes the inner of `start`: no retain, as the starter owns the inner and the
    /// machine keeps the transform meanwhile.
    @inlinable
    func subscribe(_ start: Machine.Start) {
        // Not bound to a local: that would retain it.
        guard start.inner != nil else {
            preconditionFailure("Internal inconsistency: starting an inner handed back already")
        }
        start.inner?.subscribe(to: start.transform._withUnsafeGuaranteedRef { $0.make(start.value) }, for: self)
    }

    /// The inner of `receiver` finished after its starter had left it (still running, or
    /// cancelled).
    @inlinable
    func innerFinished(_ receiver: Machine.Receiver) {
        switch machine.withLock({ $0.innerFinished(receiver) }) {
        case .none: break
        case .start(let start): startInners(start)
        case .finish(let teardown): finish(teardown)
        }
    }

    /// The inner of `receiver` failed.
    @inlinable
    func innerFailed(_ receiver: Machine.Receiver, _ error: Failure) {
        // Marks the subscription completed (releasing the source's cancel actions once
        // unlocked) under the machine's lock, under which the starter looks at it: so the
        // starter cannot find it completed, take the failed inner for one that finished, and
        // let the result finish.
        let (released, teardown) = machine.withLock { machine in
            (receiver.subscription.completeKeepingActions(), machine.innerFailed(receiver))
        }
        _ = released
        if let teardown { fail(teardown, error) }
    }

    /// Downstream cancelled, or asked for no more values.
    @inlinable
    static func cancel(_ machine: Lock<Machine>, _ drain: SerialDrain<FlatMapDelivery<NewElement, Failure>>?) {
        let teardown = machine.withLock { $0.terminate() }
        drain?.close()
        teardown?.cancelSubscriptions()
    }

    @inlinable
    func finish(_ teardown: Machine.Teardown) {
        _ = teardown  // nothing runs any more; the transform is released here, unlocked
        drain.submit(.completion(.finished))
    }

    @inlinable
    func fail(_ teardown: Machine.Teardown, _ error: Failure) {
        drain.raiseFlag()  // inners ask whether they were cancelled from now on
        teardown.cancelSubscriptions()
        drain.submit(.completion(.failure(error)))
    }
}

/// One inner subscription, as the starter holds it: its receiving end, and the subscriber that
/// leads there, made once (so the starter hands it to the inner flow without retaining
/// anything). A struct, moved from the machine to the starter and back: no allocation of its
/// own. Once the inner's subscribe has returned, the machine keeps only the receiver.
///
/// Reused: when its inner finished during its own subscribe, the state machine keeps it for
/// the next inner (its subscription active again), so inners that complete at once (`.just`)
/// cost no allocation and no mutex set-up here. `flatMapLatest` also reuses an inner it
/// replaced once nothing else refers to it (`never`: a switch allocates nothing).
@usableFromInline
struct FlatMapInner<Element: Sendable, NewElement: Sendable, Failure: Error>: Sendable {
    @usableFromInline let receiver: FlatMapInnerReceiver<Element, NewElement, Failure>
    @usableFromInline let subscriber: FlowSubscriber<NewElement, Failure>

    @inlinable
    init() {
        self.init(FlatMapInnerReceiver(subscription: FlowSubscription(watched: true)))
    }

    /// Around `receiver`, whose subscription is active and watched, and which nothing else
    /// refers to.
    @inlinable
    init(_ receiver: FlatMapInnerReceiver<Element, NewElement, Failure>) {
        self.receiver = receiver
        self.subscriber = FlowSubscriber(
            subscription: receiver.subscription,
            receive: { receiver.receive($0) },
            completeMarkingSubscription: { receiver.complete($0) }  // which marks it
        )
    }

    /// The inner's id; set under the machine's lock while no source calls back.
    @inlinable
    var id: UInt64 {
        get { receiver.id }
        nonmutating set { receiver.id = newValue }
    }

    /// Subscribes to `flow`, with its callbacks going to `storage`.
    @inlinable
    func subscribe(to flow: Flow<NewElement, Failure>, for storage: FlatMapStorage<Element, NewElement, Failure>) {
        receiver.storageRef = Unmanaged.passUnretained(storage)
        flow.run(subscriber)
    }
}

/// One inner subscription's receiving end: what its subscriber's two closures capture (and
/// nothing else, so they need no context of their own), and what the machine holds of a
/// running inner (``FlatMapRunningInners``).
///
/// It reaches the storage through an unretained reference, kept alive by the starter while the
/// inner's subscribe runs, and from then on, if the inner may still call back, by `storage`
/// (``keepStorage()``); a failure retains it while it is handled. `id` changes under the
/// machine's lock and `storageRef` in the starter's subscribe, only while no source calls back;
/// `slot` is used only under the machine's lock; `storage` and `subscription` change only while
/// no source calls back either, or on a reuse (when nothing else refers to this object).
@usableFromInline
final class FlatMapInnerReceiver<Element: Sendable, NewElement: Sendable, Failure: Error>: @unchecked Sendable {
    /// Keeps the storage alive once the starter has left an inner that may still call back;
    /// `nil` for an inner that finished during its subscribe (so a reused one makes no cycle).
    @exclusivity(unchecked)
    @usableFromInline var storage: FlatMapStorage<Element, NewElement, Failure>?
    /// The storage, for the callbacks, which use it without retaining it.
    @exclusivity(unchecked)
    @usableFromInline var storageRef: Unmanaged<FlatMapStorage<Element, NewElement, Failure>>?
    @exclusivity(unchecked)
    @usableFromInline var id: UInt64 = 0
    /// Its index in ``FlatMapRunningInners``, or -1 when it is not there.
    @exclusivity(unchecked)
    @usableFromInline var slot = -1
    /// `var` only for the uniqueness check of a reuse (``FlatMapStorage/reuse(_:)``).
    @exclusivity(unchecked)
    @usableFromInline var subscription: FlowSubscription

    @inlinable
    init(subscription: FlowSubscription) {
        self.subscription = subscription
    }

    @inlinable
    func receive(_ value: NewElement) -> FlowDemand {
        guard let storageRef else { return .stop }
        // Only the storage cancels an inner's subscription: when downstream cancels (which
        // closes the drain first), when the result fails (which raises the drain's flag first)
        // or when `flatMapLatest` switches (which raises the drain's floor above this inner's
        // id first). Until then, no lock of the subscription's own.
        let submitted = storageRef._withUnsafeGuaranteedRef { $0.drain.submitReportingFlag(.value(value), tag: id) }
        switch submitted {
        case .closed, .dropped: return .stop
        case .open: return .more
        case .flagged: return subscription.isCancelled ? .stop : .more
        }
    }

    @inlinable
    func complete(_ completion: FlowCompletion<Failure>) {
        guard let storageRef else { return }
        switch completion {
        case .finished:
            // Releases the source's cancel actions: it ended on its own. A starter still in
            // this inner's subscribe finds the subscription completed, and may reuse this inner
            // and let the storage go as soon as it is marked: nothing here touches the storage
            // then. An inner that outlived its subscribe (registered, or cancelled) keeps its
            // storage.
            if subscription.complete() { return }
            storageRef._withUnsafeGuaranteedRef { $0.innerFinished(self) }
        case .failure(let error):
            // Not reused meanwhile: the storage marks the subscription under the machine's
            // lock. Retained: a starter still in this inner's subscribe may leave the loop (and
            // the storage) while the failure is being handled.
            _ = storageRef.retain()
            defer { storageRef.release() }
            storageRef._withUnsafeGuaranteedRef { $0.innerFailed(self, error) }
        }
    }

    /// Cancels its subscription, which this object keeps alive (so the call retains nothing).
    @inlinable
    func cancel() {
        subscription.cancel()
    }

    /// ``FlowSubscription/endWatch()`` of its subscription, which this object keeps alive (so
    /// the call retains nothing).
    @inlinable
    func endWatch() -> FlowSubscription.Watch {
        subscription.endWatch()
    }

    /// The starter is leaving this inner, which may still call back: from now on it keeps the
    /// storage alive itself. Under the machine's lock, or (`flatMapLatest`) before the watch
    /// ends, whose lock orders it before any callback that finds the watch over.
    @inlinable
    func keepStorage() {
        storage = storageRef?.takeUnretainedValue()
    }
}

/// The drain, for downstream's cancel action, which refers to this handle weakly so that the
/// drain itself never gets a weak reference (and the side table that comes with one).
@usableFromInline
final class FlatMapDrainHandle<Element: Sendable, Failure: Error>: Sendable {
    @usableFromInline let drain: SerialDrain<FlatMapDelivery<Element, Failure>>

    @inlinable
    init(_ drain: SerialDrain<FlatMapDelivery<Element, Failure>>) {
        self.drain = drain
    }
}

extension FlowSubscription {
    /// Whether this value is the only one referring to the subscription: for `flatMapLatest`,
    /// reusing a replaced inner's subscription only if nothing else kept it.
    @inlinable
    mutating func isKnownUniquelyReferenced() -> Bool {
        Swift.isKnownUniquelyReferenced(&state.buffer)
    }

    /// For `flatMapLatest`, reusing a replaced inner's subscription that nothing else can reach
    /// any more: active and watched again, with no actions, as a new one.
    @inlinable
    func reactivate() {
        // Under the lock all the same: it orders this after the last use on another thread.
        let released = state.withLock { state in
            defer { state = .active(.init(), watched: true) }
            return state
        }
        _ = released  // released unlocked (no actions: cancelled or completed)
    }
}
