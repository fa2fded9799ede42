/// Which inner flows of the flatMap family run, and what happens to outer values that arrive
/// while some are running.
@usableFromInline
enum FlatMapStrategy: Sendable {
    /// Up to `maxConcurrent` inners at once; later outer values wait in a queue and start in
    /// order as slots free up (`flatMap`, `concatMap`). Nothing is dropped.
    case merge(maxConcurrent: Int)
    /// One inner: each outer value cancels the running inner and takes its place
    /// (`flatMapLatest`).
    case latest
    /// One inner: outer values that arrive while it runs are ignored (`flatMapFirst`).
    case first
}

/// The decisions of one flatMap subscription, made under the storage's lock. Each event returns
/// what to do once the lock is released: subscribe an inner (calling the user's transform),
/// cancel subscriptions, complete downstream. None of that happens here.
///
/// ```
/// running(outer sending) ──outer finished──▶ running(outer finished)
///        │                                          │
///        │                                          └──last inner finished, queue empty──▶ terminated (finished)
///        │
///        └──outer or inner failure, cancellation, downstream .stop (from either)──▶ terminated
/// ```
///
/// Starting inners is a trampoline: the thread that is handed a ``Start`` becomes the starter
/// (`isStarting`); it subscribes, then asks ``startLoopContinues()`` for the next queued value,
/// until there is none or no free slot. Inners that finish meanwhile — synchronously inside their
/// own subscribe, or on other threads — only free their slot; the starter picks the queue up. So
/// `flatMap { .just($0) }` over any number of values runs in constant stack depth, and at most
/// one thread calls the transform at a time.
///
/// The inner being started is tracked apart from the others (``Running/starting``): most
/// inners (`.just`, `.empty`, `.sequence`) complete inside their own subscribe, and those never
/// enter the `inners` dictionary, and leave their ``FlatMapInner`` (with its subscription) to
/// the next inner (``Running/spare``). Only an inner still running when its subscribe returns
/// is registered in `inners`, and its ``FlatMapInner`` stays its own.
@usableFromInline
struct FlatMapStateMachine<Element, NewElement, Failure: Error> {
    @usableFromInline
    typealias Transform = @Sendable (Element) -> Flow<NewElement, Failure>

    @usableFromInline
    typealias Inner = FlatMapInner<Element, NewElement, Failure>

    /// An inner to start: the storage calls `transform(value)` and subscribes the result
    /// through `inner` (a reused receiving end, or a new one), outside the lock. The inner's
    /// subscription is registered (as ``Running/starting``) before it is handed out, so a
    /// cancellation racing the subscribe still reaches it.
    @usableFromInline
    struct Start {
        @usableFromInline let inner: Inner
        @usableFromInline let value: Element
        @usableFromInline let transform: Transform

        @inlinable
        init(inner: Inner, value: Element, transform: @escaping Transform) {
            self.inner = inner
            self.value = value
            self.transform = transform
        }
    }

    /// What a running subscription holds.
    @usableFromInline
    struct Running {
        /// The user's closure; `nil` once handed out in a ``Teardown``.
        @usableFromInline var transform: Transform?
        @usableFromInline let outer: FlowSubscription
        /// The outer flow finished; the result finishes once `inners` and `queue` are empty.
        @usableFromInline var outerFinished = false
        /// Inners whose subscribe has returned and that have not ended, by id. Ids grow, so a
        /// later inner has a larger id.
        @usableFromInline var inners: [UInt64: FlowSubscription] = [:]
        /// The inner being subscribed by the starter, which is not in `inners`. Its subscription
        /// is watched, so finishing during its subscribe costs no trip through the machine: the
        /// starter finds the subscription completed (``FlowSubscription/endWatch()``).
        @usableFromInline var starting: Inner?
        /// The receiving end of an inner that finished during its subscribe, parked (holding
        /// no storage) for the next inner.
        @usableFromInline var spare: Inner?
        /// Outer values waiting for a free slot (`merge` only), oldest first.
        @usableFromInline var queue = FlatMapQueue<Element>()
        /// Some thread is in the start loop and will look at `queue` again before leaving it.
        @usableFromInline var isStarting = false
        @usableFromInline var lastID: UInt64 = 0

        @inlinable
        init(transform: Transform?, outer: FlowSubscription) {
            self.transform = transform
            self.outer = outer
        }

        /// Registers a new inner for `value` and makes the caller the starter.
        @inlinable
        mutating func start(_ value: Element) -> Start {
            guard let transform else {
                preconditionFailure("Internal inconsistency: starting an inner after termination")
            }
            lastID += 1
            let inner = spare.take() ?? Inner(subscription: FlowSubscription(watched: true))
            inner.id = lastID
            starting = inner
            isStarting = true
            return Start(inner: inner, value: value, transform: transform)
        }

        /// How many inners run, counting the one being subscribed.
        @inlinable
        var innerCount: Int {
            starting == nil ? inners.count : inners.count + 1
        }

        /// Nothing runs, nothing waits and nothing more will come.
        @inlinable
        var isDone: Bool {
            outerFinished && inners.isEmpty && queue.isEmpty && !isStarting
        }
    }

    /// The end of a subscription. Dropping it, which the storage does after unlocking, releases
    /// the transform and any queued values; ``cancelSubscriptions()`` cancels the outer and the
    /// inners still running (a no-op for subscriptions that completed).
    @usableFromInline
    struct Teardown {
        @usableFromInline let released: Running

        @inlinable
        init(_ released: Running) {
            self.released = released
        }

        /// Cancels the outer subscription first (no more values), then every inner.
        @inlinable
        func cancelSubscriptions() {
            released.outer.cancel()
            released.starting?.subscription.cancel()
            for inner in released.inners.values { inner.cancel() }
        }
    }

    @usableFromInline
    enum State {
        /// Subscribed to the outer flow; inners come and go. ``running`` holds the resources.
        case running
        /// Finished, failed or cancelled; ``running`` was emptied into a ``Teardown``. Later
        /// events (an inner value or completion already in flight) are ignored.
        case terminated
    }

    @usableFromInline
    enum OuterValueAction {
        /// Queued (`merge`) or ignored (`first`).
        case none
        /// Start an inner. With `replacing` (`latest`), first make downstream drop the values
        /// of older inners still in flight, then cancel `replacing`.
        case start(Start, replacing: FlowSubscription?)
        /// The subscription is over: tell the outer source to stop.
        case stop
    }

    @usableFromInline
    enum StartLoopAction {
        case start(Start)
        /// Leave the loop: nothing to start now.
        case idle
        /// Leave the loop and finish downstream.
        case finish(Teardown)
        /// Leave the loop: the subscription ended meanwhile (failed or cancelled).
        case ended
    }

    @usableFromInline
    enum InnerFinishedAction {
        case none
        /// A slot freed up and a value was waiting: become the starter.
        case start(Start)
        case finish(Teardown)
    }

    @usableFromInline let strategy: FlatMapStrategy
    @usableFromInline var state = State.running
    /// The resources of the subscription, meaningful while `state` is `.running`. A stored
    /// property beside `state` rather than the payload of `.running`, so that events change
    /// it in place: an enum payload cannot change without being copied out and back, and
    /// the copy would retain each of its references and share its dictionary and queue.
    @usableFromInline var running: Running

    @inlinable
    init(strategy: FlatMapStrategy, transform: @escaping Transform, outer: FlowSubscription) {
        self.strategy = strategy
        self.running = Running(transform: transform, outer: outer)
    }

    /// Moves to `.terminated` and hands out the resources, leaving an empty ``Running``.
    @inlinable
    mutating func teardown() -> Teardown {
        state = .terminated
        var released = Running(transform: nil, outer: running.outer)
        swap(&released, &running)
        return Teardown(released)
    }

    /// The outer flow sent a value.
    @inlinable
    mutating func outerValue(_ value: Element) -> OuterValueAction {
        guard case .running = state else { return .stop }
        if running.outerFinished {
            preconditionFailure("Internal inconsistency: a value after the outer flow finished")
        }
        let action: OuterValueAction
        switch strategy {
        case .merge(let maxConcurrent):
            if !running.isStarting && running.innerCount < maxConcurrent {
                if !running.queue.isEmpty {
                    preconditionFailure("Internal inconsistency: values queued while a slot is free and nobody starts them")
                }
                action = .start(running.start(value), replacing: nil)
            } else {
                running.queue.append(value)
                action = .none
            }
        case .latest:
            if running.innerCount > 1 {
                preconditionFailure("Internal inconsistency: flatMapLatest has \(running.innerCount) inners")
            }
            var previous = running.inners.first?.value
            running.inners.removeAll(keepingCapacity: true)
            if let starting = running.starting.take() {
                previous = starting.subscription  // replaced during its own subscribe (re-entrantly)
            }
            action = .start(running.start(value), replacing: previous)
        case .first:
            action = running.innerCount == 0 ? .start(running.start(value), replacing: nil) : .none
        }
        return action
    }

    /// The starter subscribed an inner: the next one to start, if a value waits and a slot is
    /// free; otherwise the starter leaves the loop.
    ///
    /// An inner that is still running joins `inners`; one that finished leaves its receiving
    /// end to the next, once its subscription is active again.
    @inlinable
    mutating func startLoopContinues() -> StartLoopAction {
        guard case .running = state else { return .ended }
        if !running.isStarting {
            preconditionFailure("Internal inconsistency: the start loop ran without being the starter")
        }
        if let inner = running.starting.take() {
            switch inner.endWatch() {
            case .active:
                running.inners[inner.id] = inner.subscription
            case .completed:
                inner.park()
                running.spare = inner
            case .ended:
                break  // cancelled (by its own source's operators): no longer counts
            }
        }  // else replaced during its subscribe (`latest`)
        if !running.queue.isEmpty, case .merge(let maxConcurrent) = strategy, running.inners.count < maxConcurrent,
            let value = running.queue.popFirst()
        {
            return .start(running.start(value))
        }
        running.isStarting = false
        return running.isDone ? .finish(teardown()) : .idle
    }

    /// Inner `id` finished.
    @inlinable
    mutating func innerFinished(_ id: UInt64) -> InnerFinishedAction {
        guard case .running = state else { return .none }
        if running.starting?.id == id {
            return .none  // the starter will see the free slot (and normally skips this call)
        }
        if running.inners.removeValue(forKey: id) == nil {
            return .none  // replaced by a later inner (`latest`) while finishing
        } else if running.isStarting {
            return .none  // the starter will see the free slot, or the end
        } else if let value = running.queue.popFirst() {
            return .start(running.start(value))
        } else if running.isDone {
            return .finish(teardown())
        } else {
            return .none
        }
    }

    /// Inner `id` failed: the result fails, unless that inner had been replaced already.
    @inlinable
    mutating func innerFailed(_ id: UInt64) -> Teardown? {
        guard case .running = state else { return nil }
        if running.starting?.id == id { return teardown() }
        return running.inners[id] != nil ? teardown() : nil
    }

    /// The outer flow finished: the result finishes now if nothing runs or waits.
    @inlinable
    mutating func outerFinished() -> Teardown? {
        guard case .running = state else { return nil }
        if running.outerFinished {
            preconditionFailure("Internal inconsistency: the outer flow finished twice")
        }
        running.outerFinished = true
        return running.isDone ? teardown() : nil
    }

    /// The outer flow failed, downstream cancelled, or downstream asked for no more values.
    @inlinable
    mutating func terminate() -> Teardown? {
        guard case .running = state else { return nil }
        return teardown()
    }
}

/// A first-in first-out queue of outer values. A dequeued slot is cleared at once, so a value
/// that has started is not kept alive by the queue.
@usableFromInline
struct FlatMapQueue<Element> {
    @usableFromInline var slots: [Element?] = []
    @usableFromInline var head = 0

    @inlinable
    init() {}

    @inlinable
    var isEmpty: Bool { head == slots.count }

    @inlinable
    mutating func append(_ value: Element) {
        slots.append(value)
    }

    @inlinable
    mutating func popFirst() -> Element? {
        guard head < slots.count else { return nil }
        let value = slots[head]
        slots[head] = nil
        head += 1
        if head == slots.count {
            slots.removeAll(keepingCapacity: slots.capacity <= 1_024)
            head = 0
        } else if head >= 1_024 && head * 2 >= slots.count {
            slots.removeFirst(head)
            head = 0
        }
        return value
    }
}
