/// What a subscriber tells its source after each value.
@usableFromInline
enum FlowDemand: Sendable {
    /// Keep sending.
    case more
    /// Send nothing more: the subscriber has finished or been cancelled (a `prefix` that is
    /// full, say). A synchronous source stops its loop.
    case stop
}

/// The lifetime of one subscription: cancelling it runs, once, every cancel action that the
/// chain's sources and operators registered. After the flow completes, the actions are
/// released without running. (``Spare`` may make an ended one anew, once no one else holds
/// it: a new lifetime.)
@usableFromInline
struct FlowSubscription: Sendable {
    @usableFromInline
    enum State: Sendable {
        case active(FlowCancelActions)
        case cancelled
        case completed
    }

    @usableFromInline
    let state: Lock<State>

    @inlinable
    init() {
        state = .make(.active(FlowCancelActions()))
    }

    /// A subscription made anew from an ended one (``Spare/take()``).
    private init(reusing state: Lock<State>) {
        self.state = state
    }

    /// A subscription for an upstream that this subscription's operator may cancel on its own
    /// (`prefix` when it is full, `flatMapLatest` switching); cancelling this one cancels it.
    @inlinable
    func child() -> FlowSubscription {
        let child = FlowSubscription()
        onCancel { child.cancel() }
        return child
    }

    /// Runs `action` when the subscription is cancelled: at once if it already was, never if
    /// the flow has completed.
    @inlinable
    func onCancel(_ action: @escaping CancelAction) {
        let runNow = state.withLock { state -> Bool in
            switch state {
            case .active(var actions):
                state = .cancelled  // release the other reference to the actions before adding
                actions.add(action)
                state = .active(actions)
                return false
            case .cancelled:
                return true
            case .completed:
                return false
            }
        }
        if runNow { action() }
    }

    /// Cancels: runs the registered actions once, latest first.
    @inlinable
    func cancel() {
        let actions = state.withLock { state -> FlowCancelActions? in
            guard case .active(let actions) = state else { return nil }
            state = .cancelled
            return actions
        }
        actions?.runLatestFirst()
    }

    /// The flow completed: release the actions without running them.
    @inlinable
    func complete() {
        let actions = state.withLock { state -> FlowCancelActions? in
            guard case .active(let actions) = state else { return nil }
            state = .completed
            return actions.isEmpty ? nil : actions
        }
        if let actions { _ = consume actions }  // released here, outside the lock
    }

    /// Whether the subscription was cancelled.
    @inlinable
    var isCancelled: Bool {
        state.withLock { if case .cancelled = $0 { return true } else { return false } }
    }
}

extension FlowSubscription {
    /// A subscription that ended, kept so that the next one is made without an allocation: what
    /// a flatMap keeps of its inners (``FlatMapInners``), whose inners often start one after the
    /// other ends (a `just` each, a switch away from a live subject).
    ///
    /// ```swift
    /// var spare = FlowSubscription.Spare()
    /// spare.keep(ended)                  // completed, or cancelled by whoever still holds it
    /// let subscription = spare.take()    // `ended` made anew if nothing else refers to it
    /// ```
    ///
    /// A kept subscription is made anew only once nothing else refers to it (the check that
    /// copy-on-write makes) and it has ended, so no one can tell it from a new one: its actions
    /// ran or were released when it ended, and no one is left to cancel or complete it.
    /// Otherwise `take` makes a new one.
    ///
    /// Unchecked because it holds a lock's buffer (a `ManagedBuffer`, not `Sendable`) as a
    /// reference of its own, for the uniqueness check. Sound: its owner reaches it only under
    /// its own lock (a flatMap's machine), and it touches the subscription's state only once
    /// that check has shown no one else can.
    @usableFromInline
    struct Spare: @unchecked Sendable {
        private var buffer: LockBuffer<State>?

        @usableFromInline
        init() {}

        /// Keeps `subscription`, ended or about to be cancelled by whoever still holds it, in
        /// place of the one kept before. That one is released here: if this was its last
        /// reference, it had ended, and holds nothing of the user's.
        @usableFromInline
        mutating func keep(_ subscription: consuming FlowSubscription) {
            // Written twice so that the common case, none kept (a `take` made it anew), compiles
            // to no release.
            guard buffer != nil else {
                buffer = subscription.state.buffer
                return
            }
            buffer = subscription.state.buffer
        }

        /// The kept subscription made anew, or a new one.
        @usableFromInline
        mutating func take() -> FlowSubscription {
            guard isKnownUniquelyReferenced(&buffer), let ended = buffer.take() else { return FlowSubscription() }
            // Without its mutex (`take` runs under a flatMap's lock, and takes no other): nothing
            // else refers to it, and the last thread that did released it after its last use,
            // which the uniqueness check orders before these accesses, as copy-on-write relies on.
            let reset = ended.withUnsafeMutablePointerToHeader { state -> Bool in
                if case .active = state.pointee { return false }
                state.pointee = .active(FlowCancelActions())
                return true
            }
            guard reset else {
                buffer = ended
                return FlowSubscription()
            }
            return FlowSubscription(reusing: Lock(buffer: ended))
        }
    }
}

/// Raised when a subscription is cancelled, and read without a lock: what a synchronous source
/// asks before each value, so that it stops even when the operators after it drop values
/// without asking downstream (`filter`, `count`) and its subscriber never answers ``FlowDemand/stop``.
///
/// ```swift
/// let cancelled = subscriber.subscription.cancellationFlag()
/// for value in values where cancelled.isRaised || subscriber.receive(value) == .stop { return }
/// ```
@usableFromInline
final class FlowCancellationFlag: Sendable {
    @usableFromInline let state = AtomicWord(0)

    @inlinable
    init() {}

    @inlinable
    var isRaised: Bool { state.load() != 0 }

    @inlinable
    func raise() { state.store(1) }
}

extension FlowSubscription {
    /// A flag raised when this subscription is cancelled.
    @inlinable
    func cancellationFlag() -> FlowCancellationFlag {
        let flag = FlowCancellationFlag()
        onCancel { flag.raise() }
        return flag
    }
}

/// The cancel actions of a subscription. The first is kept inline: most subscriptions have
/// one (their source's), and an array would cost an allocation per subscription. The array
/// exists only from the second on, so releasing the actions of a subscription that has none or
/// one releases no array.
///
/// ```swift
/// var actions = FlowCancelActions()
/// actions.add { task.cancel() }
/// actions.runLatestFirst()
/// ```
@usableFromInline
struct FlowCancelActions: Sendable {
    @usableFromInline var first: CancelAction?
    /// The actions after the first, in the order added.
    @usableFromInline var others: [CancelAction]?

    @inlinable
    init() {}

    /// No action was added.
    @inlinable
    var isEmpty: Bool { first == nil && others == nil }

    @inlinable
    mutating func add(_ action: @escaping CancelAction) {
        if first == nil {
            first = action
        } else if others == nil {
            others = [action]
        } else {
            others!.append(action)
        }
    }

    /// Runs every action, the latest added first.
    @inlinable
    func runLatestFirst() {
        for action in (others ?? []).reversed() { action() }
        first?()
    }
}

/// The receiving end of a subscription, as sources and operators see it.
///
/// Deliveries to one subscriber are serialised (contract 3): every source that can emit from
/// several threads (subjects, `create`, merging operators) funnels its events through a
/// ``SerialDrain``, so operators may keep plain mutable state per subscription.
@usableFromInline
struct FlowSubscriber<Element, Failure: Error>: Sendable {
    @usableFromInline let receive: @Sendable (Element) -> FlowDemand
    @usableFromInline let complete: @Sendable (FlowCompletion<Failure>) -> Void
    @usableFromInline let subscription: FlowSubscription

    /// Completing marks `subscription` completed first, so the cancel actions registered for
    /// this upstream are released without running: nothing is cancelled after it completed.
    @inlinable
    init(
        subscription: FlowSubscription,
        receive: @escaping @Sendable (Element) -> FlowDemand,
        complete: @escaping @Sendable (FlowCompletion<Failure>) -> Void
    ) {
        self.subscription = subscription
        self.receive = receive
        self.complete = { completion in
            subscription.complete()
            complete(completion)
        }
    }

    /// For an operator whose `complete` itself marks `subscription` completed before anything
    /// else: no wrapping closure (an allocation per subscription).
    @inlinable
    init(
        subscription: FlowSubscription,
        receive: @escaping @Sendable (Element) -> FlowDemand,
        completeMarkingSubscription complete: @escaping @Sendable (FlowCompletion<Failure>) -> Void
    ) {
        self.subscription = subscription
        self.receive = receive
        self.complete = complete
    }
}

/// Per-subscription mutable state of an operator, safe without a lock because deliveries to
/// one subscriber are serialised.
///
/// Unchecked: `value` is touched only by the operator's receive and complete closures, which
/// the serial-delivery contract calls one at a time, each access one read or write (a reducer's
/// `inout` step included), never across a call back into the operator. Debug builds trap on an
/// overlapping access (another thread, or nested), naming the broken contract; release builds
/// skip even Swift's exclusivity check, the largest single cost of a per-value path.
@usableFromInline
final class SerialState<Value: Sendable>: @unchecked Sendable {
    #if DEBUG
    @exclusivity(unchecked)  // checked here, across threads too
    @usableFromInline var stored: Value
    /// 1 while an access is under way.
    @usableFromInline let inUse = AtomicWord(0)

    @inlinable
    init(_ value: Value) {
        self.stored = value
    }

    @inlinable
    var value: Value {
        _read {
            beginAccess()
            defer { inUse.store(0) }
            yield stored
        }
        _modify {
            beginAccess()
            defer { inUse.store(0) }
            yield &stored
        }
    }

    @inlinable
    func beginAccess() {
        if inUse.compareExchange(expected: 0, desired: 1) != 0 { overlappingSerialStateAccess(Value.self) }
    }
    #else
    @exclusivity(unchecked)
    @usableFromInline var value: Value

    @inlinable
    init(_ value: Value) {
        self.value = value
    }
    #endif
}

#if DEBUG
@usableFromInline
func overlappingSerialStateAccess(_ value: Any.Type) -> Never {
    preconditionFailure(
        "AsyncBridge: two accesses to an operator's per-subscription state (SerialState<\(value)>) overlapped. "
            + "The serial-delivery contract is broken: an operator's receive and complete closures are called one event at a time "
            + "(a source that can emit from several threads must serialise its events through a SerialDrain), "
            + "and each use of the state is one step, never held across a call that can come back to the operator."
    )
}
#endif
