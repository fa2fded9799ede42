/// Which inner flows of the flatMap family run, and what becomes of outer values that arrive
/// while some are running.
@usableFromInline
enum FlatMapStrategy: Sendable {
    /// Up to `maxConcurrent` inners; later values wait in a queue, in order (`flatMap`, `concatMap`).
    case merge(maxConcurrent: Int)
    /// One inner, cancelled and replaced by each outer value (`flatMapLatest`).
    case latest
    /// One inner; outer values that arrive while it runs are ignored (`flatMapFirst`).
    case first
}

/// The decisions of one flatMap subscription, made under the storage's lock. Each event returns
/// what to do once unlocked (call the transform and subscribe, deliver, cancel, release), so the
/// machine can be driven with plain values (`FlatMapStateMachineTests`).
///
/// ```
/// running ──outer finished, nothing runs or waits──▶ terminated (finished delivered)
///    │
///    ├──failure, or finished while a value is being delivered──▶ completing ──queue delivered──▶ terminated
///    │
///    └──cancellation, downstream .stop──▶ terminated
/// ```
///
/// Inners are known by id, given in order, and the machine holds each running one's subscription
/// (and that of the inner removed last, to make it anew for the next: ``FlowSubscription/Spare``);
/// an event from an id it no longer holds (a replaced `latest` inner, or any inner once
/// terminated) is dropped.
///
/// Delivery is decided here, so that checking an inner's id and placing its value in the order
/// are one decision: the thread handed ``ValueAction/deliver(_:)`` delivers, then asks
/// ``delivered(for:)`` for the next event, while others queue theirs. So once a switch is
/// decided, a replaced inner's value is neither delivered nor placed after the new inner's.
///
/// Starting is a trampoline (`merge`): the thread handed a ``Start`` subscribes, then asks
/// ``startReturned(finishing:)`` for the next queued value, until none waits or no slot is free.
/// Inners that finish meanwhile only free their slot; the starter's own, if it finished during
/// its subscribe, is reported with that question. So `flatMap { .just($0) }` runs in constant
/// stack depth, and calls to the transform never overlap.
@usableFromInline
struct FlatMapStateMachine<Element: Sendable, NewElement: Sendable, Failure: Error>: Sendable {
    @usableFromInline
    typealias Transform = @Sendable (Element) -> Flow<NewElement, Failure>

    /// An inner to start, once unlocked: `transform(value)` subscribed with `subscription`, which
    /// the machine already holds (so a cancellation racing the subscribe reaches it).
    @usableFromInline
    struct Start: Sendable {
        @usableFromInline let transform: Transform
        @usableFromInline let value: Element
        @usableFromInline let id: UInt64
        @usableFromInline let subscription: FlowSubscription

        @inlinable
        init(transform: @escaping Transform, value: Element, id: UInt64, subscription: FlowSubscription) {
            self.transform = transform
            self.value = value
            self.id = id
            self.subscription = subscription
        }
    }

    @usableFromInline
    typealias Running = FlatMapRunning<Element, NewElement, Failure>

    /// Everything a subscription held, handed out as it ends: to cancel (``cancelSubscriptions()``,
    /// unless it finished) and to release, both once unlocked.
    @usableFromInline
    struct Teardown: Sendable {
        @usableFromInline let released: Running?
        /// Values that were waiting for delivery when downstream cancelled.
        @usableFromInline let dropped: RingBuffer<NewElement>?

        @inlinable
        init(_ released: Running?, dropped: RingBuffer<NewElement>? = nil) {
            self.released = released
            self.dropped = dropped
        }

        /// Cancels the outer subscription first (no more values), then every inner.
        @inlinable
        func cancelSubscriptions() {
            guard let released else { return }
            released.outer.cancel()
            released.inners.cancelAll()
        }
    }

    @usableFromInline
    enum State: Sendable {
        /// What it holds is in ``running``.
        case running
        /// The result finished or failed while a thread was delivering: that thread delivers
        /// `pending`, then `completion`.
        case completing(pending: RingBuffer<NewElement>, completion: FlowCompletion<Failure>)
        /// Nothing more is delivered; the machine holds nothing.
        case terminated
    }

    /// What a starter, an inner's end or the outer's end leads to.
    @usableFromInline
    enum Action: Sendable {
        case none
        /// Become the starter.
        case start(Start)
        /// The start loop is over, or the subscription ended before it: release what it held.
        case end(Teardown)
        /// The subscription ended: cancel (unless it finished), release, then deliver `completion`.
        case complete(Teardown, FlowCompletion<Failure>)
        /// As `complete`, but the thread delivering now delivers `completion` after its queue.
        case completeLater(Teardown, FlowCompletion<Failure>)
    }

    /// What to do with an inner's value.
    @usableFromInline
    enum ValueAction: Sendable {
        /// Deliver it, then ask ``delivered(for:)`` for more.
        case deliver(NewElement)
        /// Queued for the thread delivering now.
        case queued
        /// Dropped: the inner was replaced, or the subscription ended. Its source should stop.
        case drop
    }

    /// What the deliverer does next.
    @usableFromInline
    enum DeliveryAction: Sendable {
        case deliver(NewElement)
        case complete(FlowCompletion<Failure>)
        /// Nothing waits; `more` while the subscription runs.
        case idle(more: Bool)
    }

    @usableFromInline let strategy: FlatMapStrategy
    @usableFromInline var state: State
    /// What the subscription holds: set while ``state`` is ``State/running``, `nil` once it
    /// ended. Beside the enum rather than its payload, so that an event uses it in place
    /// (`running!`) instead of copying the reference out.
    @usableFromInline var running: Running?

    @inlinable
    init(strategy: FlatMapStrategy, transform: @escaping Transform, outer: FlowSubscription) {
        self.strategy = strategy
        self.state = .running
        self.running = .make(transform: transform, outer: outer)
    }

    /// Whether nothing more will be delivered (and the machine holds nothing).
    @inlinable
    var isTerminated: Bool {
        if case .terminated = state { return true }
        return false
    }

    /// Ends the running subscription with `completion` (`nil`: cancelled).
    @inlinable
    mutating func end(_ completion: FlowCompletion<Failure>?) -> Action {
        let released = running.take()!
        defer { released.end() }  // from then on, only read by the teardown's owner
        guard let completion else {
            state = .terminated
            return .end(Teardown(released))
        }
        guard released.isDelivering else {
            state = .terminated
            return .complete(Teardown(released), completion)
        }
        state = .completing(pending: released.pending.takeAll(), completion: completion)
        return .completeLater(Teardown(released), completion)
    }

    /// The outer flow sent a value. `.none` when it was queued or ignored; `.end` (with nothing
    /// held) when the subscription is over and the outer source should stop.
    @inlinable
    mutating func outerValue(_ value: Element) -> (Action, replaced: FlowSubscription?) {
        guard case .running = state else { return (.end(Teardown(nil)), nil) }
        if running!.outerFinished {
            preconditionFailure("Internal inconsistency: a value after the outer flow finished")
        }
        switch strategy {
        case .merge(let maxConcurrent):
            if !running!.isStarting && running!.inners.count < maxConcurrent {
                running!.isStarting = true
                return (.start(running!.start(value)), nil)
            }
            running!.waiting.append(value)
            return (.none, nil)
        case .latest:
            let (start, replaced) = running!.replace(with: value)
            return (.start(start), replaced)
        case .first:
            guard running!.inners.isEmpty && !running!.isStarting else { return (.none, nil) }
            running!.isStarting = true
            return (.start(running!.start(value)), nil)
        }
    }

    /// The starter has subscribed its last ``Start``'s inner: the next to start, if a value waits
    /// and a slot is free, else the starter leaves the loop. `finishing`: that inner's id, if it
    /// finished during the subscribe (its ``innerFinished(_:)``, folded into this event).
    @inlinable
    mutating func startReturned(finishing finished: UInt64? = nil) -> Action {
        guard case .running = state else { return .end(Teardown(nil)) }
        if let finished { running!.inners.removeLast(finished) }
        if case .merge(let maxConcurrent) = strategy, running!.inners.count < maxConcurrent,
            let value = running!.waiting.popFirst()
        {
            return .start(running!.start(value))
        }
        running!.isStarting = false
        return running!.isDone ? end(.finished) : .none
    }

    @inlinable
    mutating func innerFinished(_ id: UInt64) -> Action {
        guard case .running = state, running!.inners.remove(id) != nil else { return .none }
        if running!.isStarting {
            return .none  // the starter sees the free slot, or the end
        }
        if case .merge = strategy, let value = running!.waiting.popFirst() {
            running!.isStarting = true
            return .start(running!.start(value))
        }
        return running!.isDone ? end(.finished) : .none
    }

    /// The inner `id` failed: the result fails, unless that inner had ended already (replaced).
    @inlinable
    mutating func innerFailed(_ id: UInt64, _ error: Failure) -> Action {
        guard case .running = state, running!.inners.contains(id) else { return .none }
        return end(.failure(error))
    }

    @inlinable
    mutating func outerCompleted(_ completion: FlowCompletion<Failure>) -> Action {
        guard case .running = state else { return .none }
        if case .failure = completion { return end(completion) }
        if running!.outerFinished {
            preconditionFailure("Internal inconsistency: the outer flow finished twice")
        }
        running!.outerFinished = true
        return running!.isDone ? end(.finished) : .none
    }

    /// Downstream cancelled, or asked for no more values: nothing more is delivered, and what is
    /// queued is dropped.
    @inlinable
    mutating func cancel() -> Action {
        switch state {
        case .running:
            return end(nil)
        case .completing(let pending, _):
            state = .terminated
            return .end(Teardown(nil, dropped: pending))
        case .terminated:
            return .none
        }
    }

    @inlinable
    mutating func innerValue(_ value: NewElement, from id: UInt64) -> ValueAction {
        guard case .running = state else { return .drop }
        if case .latest = strategy, id != running!.lastID { return .drop }
        if running!.isDelivering {
            running!.pending.append(value)
            return .queued
        }
        running!.isDelivering = true
        return .deliver(value)
    }

    /// The deliverer, which `id`'s value made one, has delivered its event: the next one, or
    /// it stops.
    @inlinable
    mutating func delivered(for id: UInt64) -> DeliveryAction {
        switch state {
        case .running:
            if let next = running!.pending.popFirst() { return .deliver(next) }
            running!.isDelivering = false
            if case .latest = strategy, id != running!.lastID { return .idle(more: false) }  // replaced
            return .idle(more: true)
        case .completing(var pending, let completion):
            state = .terminated  // lets go of `pending`'s storage, so that popping does not copy it
            guard let next = pending.popFirst() else { return .complete(completion) }
            state = .completing(pending: pending, completion: completion)
            return .deliver(next)
        case .terminated:
            return .idle(more: false)
        }
    }
}
