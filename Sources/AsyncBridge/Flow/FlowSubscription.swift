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
/// released without running.
@usableFromInline
struct FlowSubscription: Sendable {
    @usableFromInline
    enum State {
        case active([CancelAction])
        case cancelled
        case completed
    }

    @usableFromInline
    let state: Lock<State>

    @inlinable
    init() {
        state = .make(.active([]))
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
                state = .cancelled  // release the array's other reference before appending
                actions.append(action)
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
        for action in end(as: .cancelled).reversed() { action() }
    }

    /// The flow completed: release the actions without running them.
    @inlinable
    func complete() {
        _ = end(as: .completed)  // released here, outside the lock
    }

    /// Moves an active subscription to `final`, handing back its actions.
    @inlinable
    func end(as final: State) -> [CancelAction] {
        state.withLock { state in
            guard case .active(let actions) = state else { return [] }
            state = final
            return actions
        }
    }

    /// Makes a completed subscription active again, with no actions, for its owner to reuse
    /// for another upstream (a flatMap inner that completed during its subscribe). Returns
    /// `false`, changing nothing, unless the subscription had completed.
    @inlinable
    func reactivate() -> Bool {
        state.withLock { state in
            guard case .completed = state else { return false }
            state = .active([])
            return true
        }
    }

    /// Whether the subscription was cancelled.
    @inlinable
    var isCancelled: Bool {
        state.withLock { if case .cancelled = $0 { return true } else { return false } }
    }
}

/// The receiving end of a subscription, as sources and operators see it.
///
/// Deliveries to one subscriber are serialised (contract 3): every source that can emit from
/// several threads (subjects, `create`, the operators that merge flows) funnels its events
/// through a ``SerialDelivery``. That is why operators may keep plain mutable state per
/// subscription.
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

/// Per-subscription mutable state of an operator. Safe without a lock because deliveries to
/// one subscriber are serialised.
///
/// Not checked for exclusive access at run time: every use reads or writes it in one step,
/// never across a call to user code, and the check (a runtime call on every access) was the
/// largest single cost of a subscriber's per-value path.
@usableFromInline
final class SerialState<Value>: @unchecked Sendable {
    @exclusivity(unchecked)
    @usableFromInline var value: Value

    @inlinable
    init(_ value: Value) {
        self.value = value
    }
}
