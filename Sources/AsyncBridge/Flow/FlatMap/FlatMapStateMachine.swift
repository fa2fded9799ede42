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
/// enter `inners`, and leave their ``FlatMapInner`` (with its subscription and subscriber) to
/// the next inner (``Running/spare``). Only an inner still running when its subscribe returns
/// is registered in `inners`, and its ``FlatMapInner`` stays its own.
///
/// The starter's path retains nothing per inner (each retain and release is an atomic
/// operation, and they dominated an inner's cost): the ``Start`` owns the inner, which the
/// machine only points to while the starter holds it, and points to the transform, which the
/// machine keeps for the starter even past termination (see ``teardown()``).
@usableFromInline
struct FlatMapStateMachine<Element: Sendable, NewElement: Sendable, Failure: Error>: Sendable {
    @usableFromInline
    typealias Transform = @Sendable (Element) -> Flow<NewElement, Failure>

    @usableFromInline
    typealias Inner = FlatMapInner<Element, NewElement, Failure>

    @usableFromInline
    typealias Receiver = FlatMapInnerReceiver<Element, NewElement, Failure>

    /// An inner to start: the storage calls `transform(value)` and subscribes the result
    /// through `inner` (a reused receiving end, or a new one), outside the lock, then hands
    /// `inner` back to ``startLoopContinues(_:)``. The inner is registered (as
    /// ``Running/starting``) before it is handed out, so a cancellation racing the subscribe
    /// still reaches it.
    @usableFromInline
    struct Start {
        /// Owned by the starter until it hands it back.
        @usableFromInline var inner: Inner?
        /// The inner's id.
        @usableFromInline let id: UInt64
        @usableFromInline let value: Element
        /// Not retained: the machine keeps it until the starter has handed `inner` back. Unless
        /// `registered`.
        @usableFromInline let transform: Unmanaged<FlatMapTransform<Element, NewElement, Failure>>
        /// `flatMapLatest`'s switch to an inner expected to keep running: registered as running
        /// already, and `transform` retained for the starter (see
        /// ``switchLatest(to:spare:replacing:)``). The starter does not hand `inner` back.
        @usableFromInline let registered: Bool

        @inlinable
        init(
            inner: Inner,
            id: UInt64,
            value: Element,
            transform: Unmanaged<FlatMapTransform<Element, NewElement, Failure>>,
            registered: Bool = false
        ) {
            self.inner = inner
            self.id = id
            self.value = value
            self.transform = transform
            self.registered = registered
        }
    }

    /// What a running subscription holds.
    @usableFromInline
    struct Running: Sendable {
        /// The user's closure; `nil` once handed out in a ``Teardown``, or to the starter
        /// leaving the loop (``startLoopContinues(_:)``) if one was starting then.
        @usableFromInline var transform: FlatMapTransform<Element, NewElement, Failure>?
        @usableFromInline let outer: FlowSubscription
        /// The outer flow finished; the result finishes once `inners` and `queue` are empty.
        @usableFromInline var outerFinished = false
        /// Inners whose subscribe has returned and that have not ended. Ids grow, so a later
        /// inner has a larger id.
        @usableFromInline var inners = FlatMapRunningInners<Element, NewElement, Failure>()
        /// The inner being subscribed by the starter, which is not in `inners`. Its subscription
        /// is watched, so finishing during its subscribe costs no trip through the machine: the
        /// starter finds the subscription completed (``FlowSubscription/endWatch()``).
        ///
        /// Not retained: the starter owns it until it hands it back to
        /// ``startLoopContinues(_:)``. That and ``teardown()`` clear this; used only under the
        /// lock, while it is set.
        @usableFromInline var starting: Unmanaged<Receiver>?
        /// An inner that finished during its subscribe, kept for the next inner. Its receiver
        /// holds no storage (its `storageRef`, unretained, is not used until the next attach).
        @usableFromInline var spare: Inner?
        /// Outer values waiting for a free slot (`merge` only), oldest first.
        @usableFromInline var queue = FlatMapQueue<Element>()
        /// Some thread is in the start loop and will look at `queue` again before leaving it.
        @usableFromInline var isStarting = false
        @usableFromInline var lastID: UInt64 = 0

        @inlinable
        init(transform: FlatMapTransform<Element, NewElement, Failure>?, outer: FlowSubscription) {
            self.transform = transform
            self.outer = outer
        }

        /// Registers a new inner for `value` and makes the caller the starter.
        @inlinable
        mutating func start(_ value: Element) -> Start {
            // Not bound to a local: that would retain it, and release it again at the end.
            guard transform != nil else {
                preconditionFailure("Internal inconsistency: starting an inner after termination")
            }
            lastID += 1
            let inner = spare.take() ?? Inner()
            inner.id = lastID
            starting = Unmanaged.passUnretained(inner.receiver)
            isStarting = true
            return Start(inner: inner, id: lastID, value: value, transform: Unmanaged.passUnretained(transform!))
        }

        /// Whether `receiver` is ``starting``'s.
        @inlinable
        func isStarting(_ receiver: Receiver) -> Bool {
            starting?._withUnsafeGuaranteedRef { $0 === receiver } ?? false
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
    /// the transform (unless a starter is in the start loop, which may call it) and any queued
    /// values; ``cancelSubscriptions()`` cancels the outer and the inners still running (a
    /// no-op for subscriptions that completed).
    @usableFromInline
    struct Teardown {
        /// Its ``Running/starting`` cleared: that inner may be gone once the lock is released.
        @usableFromInline let released: Running
        /// The subscription of the inner being started, if any.
        @usableFromInline let starting: FlowSubscription?

        @inlinable
        init(_ released: Running, starting: FlowSubscription?) {
            self.released = released
            self.starting = starting
        }

        /// Cancels the outer subscription first (no more values), then every inner.
        @inlinable
        func cancelSubscriptions() {
            released.outer.cancel()
            starting?.cancel()
            released.inners.cancelAll()
        }
    }

    @usableFromInline
    enum State: Sendable {
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
        /// Start an inner.
        case start(Start)
        /// The subscription is over: tell the outer source to stop.
        case stop
    }

    @usableFromInline
    enum StartLoopAction {
        case start(Start)
        /// Leave the loop: nothing to start now.
        case idle
        /// Leave the loop and finish downstream.
        indirect case finish(Teardown)
        /// Leave the loop: the subscription ended meanwhile (failed or cancelled). Release the
        /// transform, kept for the starter, once unlocked.
        case ended(FlatMapTransform<Element, NewElement, Failure>?)
    }

    @usableFromInline
    enum InnerFinishedAction {
        case none
        /// A slot freed up and a value was waiting: become the starter.
        case start(Start)
        indirect case finish(Teardown)
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
        self.running = Running(transform: FlatMapTransform(transform), outer: outer)
    }

    /// Moves to `.terminated` and hands out the resources, leaving an empty ``Running``: empty
    /// but for the transform if a starter may be calling it (the starter takes it when it leaves
    /// the loop).
    @inlinable
    mutating func teardown() -> Teardown {
        state = .terminated
        var released = Running(transform: nil, outer: running.outer)
        swap(&released, &running)
        if released.isStarting { swap(&released.transform, &running.transform) }
        let starting = released.starting?._withUnsafeGuaranteedRef { $0.subscription }
        released.starting = nil
        return Teardown(released, starting: starting)
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
                action = .start(running.start(value))
            } else {
                running.queue.append(value)
                action = .none
            }
        case .latest:
            preconditionFailure("Internal inconsistency: flatMapLatest switches through switchLatest(to:spare:replacing:)")
        case .first:
            action = running.innerCount == 0 ? .start(running.start(value)) : .none
        }
        return action
    }

    /// `flatMapLatest`'s switch to the inner for `value`: takes the running inner out (to be
    /// cancelled once unlocked, through `replacing`), and starts the new one. Returns `nil` once
    /// terminated.
    ///
    /// If the last inner finished during its subscribe (``Running/spare`` is set), the next one
    /// probably does too (`.just`): the start loop's path, which takes no reference. Otherwise
    /// the new inner is registered as running before it is subscribed (so that a cancellation
    /// or a failure racing its subscribe reaches it), on `spare` if set, and the starter holds
    /// a reference of its own to the transform: nothing to hand back, so an inner still running
    /// once subscribed (`never`, a request) costs no second trip through the machine.
    @inlinable
    mutating func switchLatest(to value: Element, spare: inout Inner?, replacing: inout Receiver?) -> Start? {
        guard case .running = state else { return nil }
        // Outer values come one at a time, and only they start inners here.
        if running.isStarting || running.inners.count > 1 {
            preconditionFailure("Internal inconsistency: flatMapLatest got an outer value with \(running.innerCount) inners, starting: \(running.isStarting)")
        }
        replacing = running.inners.removeOnly()
        if running.spare != nil { return running.start(value) }
        guard running.transform != nil else {
            preconditionFailure("Internal inconsistency: starting an inner after termination")
        }
        running.lastID += 1
        let inner = spare.take() ?? Inner()
        inner.id = running.lastID
        running.inners.insert(inner.receiver)
        return Start(inner: inner, id: running.lastID, value: value, transform: .passRetained(running.transform!), registered: true)
    }

    /// The inner of a registered ``Start`` ended during its subscribe: it no longer runs, and
    /// if it `finished`, it serves the next inner. Returns whether the subscription had ended.
    @inlinable
    mutating func registeredInnerEnded(_ started: inout Inner?, finished: Bool) -> (InnerFinishedAction, terminated: Bool) {
        guard case .running = state, let receiver = started?.receiver else { return (.none, true) }
        let action = innerFinished(receiver)
        if finished { running.spare = started.take() }
        return (action, false)
    }

    /// The starter subscribed `started` (and hands it back): the next one to start, if a value
    /// waits and a slot is free; otherwise the starter leaves the loop.
    ///
    /// An inner that is still running joins `inners`; one that finished leaves its receiving
    /// end to the next, once its subscription is active again. One that may still call back
    /// keeps the storage alive from now on.
    @inlinable
    mutating func startLoopContinues(_ started: inout Inner?) -> StartLoopAction {
        // `started` stays with the starter, to be released unlocked, unless it is kept here.
        guard let watch = started?.receiver.endWatch() else {
            preconditionFailure("Internal inconsistency: the start loop continued without its inner")
        }
        if watch != .completed { started?.receiver.keepStorage() }
        guard case .running = state else { return .ended(running.transform.take()) }
        if !running.isStarting {
            preconditionFailure("Internal inconsistency: the start loop ran without being the starter")
        }
        let receiver = running.starting
        running.starting = nil
        switch watch {
        case .active:
            // Through `starting`, which points to `started`'s receiver: no copy of `started`.
            if let receiver { running.inners.insert(receiver.takeUnretainedValue()) }
        case .completed:
            running.spare = started.take()
        case .ended:
            break  // cancelled (by its own source's operators): no longer counts
        }
        if !running.queue.isEmpty, case .merge(let maxConcurrent) = strategy, running.inners.count < maxConcurrent,
            let value = running.queue.popFirst()
        {
            return .start(running.start(value))
        }
        running.isStarting = false
        return running.isDone ? .finish(teardown()) : .idle
    }

    /// The inner of `receiver` finished.
    @inlinable
    mutating func innerFinished(_ receiver: Receiver) -> InnerFinishedAction {
        guard case .running = state else { return .none }
        if running.isStarting(receiver) {
            return .none  // the starter will see the free slot (and normally skips this call)
        }
        if !running.inners.remove(receiver) {
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

    /// The inner of `receiver` failed: the result fails, unless that inner had been replaced
    /// already.
    @inlinable
    mutating func innerFailed(_ receiver: Receiver) -> Teardown? {
        guard case .running = state else { return nil }
        if running.isStarting(receiver) { return teardown() }
        return running.inners.contains(receiver) ? teardown() : nil
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

/// The user's transform, in an object of its own so that the starter can call it without
/// retaining it (see ``FlatMapStateMachine/Start``).
@usableFromInline
final class FlatMapTransform<Element: Sendable, NewElement: Sendable, Failure: Error>: Sendable {
    @usableFromInline let transform: @Sendable (Element) -> Flow<NewElement, Failure>

    @inlinable
    init(_ transform: @escaping @Sendable (Element) -> Flow<NewElement, Failure>) {
        self.transform = transform
    }

    /// Calls the transform (kept alive by this object, so not retained).
    @inlinable
    func make(_ value: Element) -> Flow<NewElement, Failure> {
        transform(value)
    }
}

/// The inners that run, each knowing its place (``FlatMapInnerReceiver/slot``): adding and
/// removing one costs no hashing and no search, and cancelling them all walks an array. The
/// first has a field of its own (slot 0), so the single inner of `flatMapLatest`,
/// `flatMapFirst` and `concatMap` costs no array operation. Changed only under the machine's
/// lock, as the slots are.
@usableFromInline
struct FlatMapRunningInners<Element: Sendable, NewElement: Sendable, Failure: Error>: Sendable {
    @usableFromInline
    typealias Receiver = FlatMapInnerReceiver<Element, NewElement, Failure>

    /// Slot 0; `nil` only when `rest` is empty too.
    @usableFromInline var first: Receiver?
    /// Slots 1, 2, …
    @usableFromInline var rest: ContiguousArray<Receiver> = []

    @inlinable
    init() {}

    @inlinable
    var count: Int { first == nil ? 0 : rest.count + 1 }

    @inlinable
    var isEmpty: Bool { first == nil }

    @inlinable
    mutating func insert(_ receiver: consuming Receiver) {
        if first == nil {
            receiver.slot = 0
            first = receiver
        } else {
            receiver.slot = rest.count + 1
            rest.append(receiver)
        }
    }

    @inlinable
    func contains(_ receiver: Receiver) -> Bool {
        let slot = receiver.slot
        if slot == 0 { return first === receiver }
        return slot > 0 && slot <= rest.count && rest[slot - 1] === receiver
    }

    /// Removes `receiver`, moving the last one into its place; `false` if it was not here.
    @inlinable
    mutating func remove(_ receiver: Receiver) -> Bool {
        guard contains(receiver) else { return false }
        let slot = receiver.slot
        receiver.slot = -1
        guard let last = rest.popLast() else {
            first = nil
            return true
        }
        if last !== receiver {
            last.slot = slot
            if slot == 0 { first = last } else { rest[slot - 1] = last }
        }
        return true
    }

    /// Removes the only inner, if any (`latest` has one at most).
    @inlinable
    mutating func removeOnly() -> Receiver? {
        if !rest.isEmpty {
            preconditionFailure("Internal inconsistency: removing the only inner of \(count)")
        }
        first?.slot = -1
        return first.take()
    }

    /// Cancels every inner's subscription.
    @inlinable
    func cancelAll() {
        first?.subscription.cancel()
        for receiver in rest { receiver.subscription.cancel() }
    }
}

/// A first-in first-out queue of outer values. A dequeued slot is cleared at once, so a value
/// that has started is not kept alive by the queue.
@usableFromInline
struct FlatMapQueue<Element: Sendable>: Sendable {
    @usableFromInline var slots: [Element?] = []
    @usableFromInline var head = 0

    @inlinable
    init() {}

    @inlinable
    var isEmpty: Bool { head == slots.count }

    @inlinable
    mutating func append(_ value: Element) {
        // Room for a few at once: a queue that starts growing usually goes on.
        if slots.capacity == 0 { slots.reserveCapacity(16) }
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
