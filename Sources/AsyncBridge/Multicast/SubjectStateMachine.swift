/// The state every subject and relay shares, and the decisions taken under its lock.
///
/// A subject puts everything that happens to it — a value, the completion, a new subscriber —
/// in **one queue**, in the order it accepted them, and one thread at a time (the
/// *deliverer*) works through that queue with no lock held (the lock rule). So every
/// subscriber sees the events in the same order, deliveries never overlap, a send made from
/// inside a handler is delivered after the current one, and a new subscriber's replay takes
/// its place in the queue like any send: it cannot interleave with a concurrent send, miss
/// one, or see one twice.
///
/// The subject's own state (the replay buffer, the completion) changes when an event is
/// accepted, in the same critical section that queues it, so `LatestValueSubject.value` reads
/// what the caller just sent even while another thread is still delivering, and the replay
/// handed to a new subscriber is exactly the values queued before it.
///
/// This is `SerialDrain` with the subject's state inside the same lock: a separate drain
/// would need a second critical section, and two threads could then update the state in one
/// order and queue their events in the other.
///
/// **The cost of a send** is two critical sections when nobody else is delivering: one that
/// accepts the value and makes the caller the deliverer, lending it the subscribers, and one,
/// after delivering, that finds the queue empty and lets the role go. Nothing else is
/// locked, allocated or even reference-counted per send:
///
/// - The subscribers are a ``SubjectSubscriberTable``, whose list of joined subscribers is
///   never changed while it is lent to the deliverer, so the deliverer goes through it with no
///   lock held; the state keeps it alive until its event is delivered, so the deliverer does
///   not retain it. Subscribing and cancelling cost the same whatever the number of others.
/// - No lock per subscriber: who receives an event is decided when it is taken, under the
///   lock, so a subscriber removed before that gets nothing more. One removed while the
///   event is in flight is skipped too when the removal comes from the delivering thread (a
///   handler that cancels itself or another subscriber); see ``remove(_:)``. A removal from
///   another thread lets the event in flight finish, which contract 3 allows.
///
/// ```swift
/// var machine = SubjectStateMachine<Int, Never>(bufferSize: 1, initial: [0], replaysAfterCompletion: false)
/// let (recipients, evicted) = machine.send(1)   // the caller delivers 1 to recipients; evicted 0
/// ```
@usableFromInline
struct SubjectStateMachine<Element: Sendable, Failure: Error>: Sendable {
    @usableFromInline typealias Subscriber = SubjectSubscriber<Element, Failure>
    @usableFromInline typealias Subscribers = SubjectSubscriberList<Element, Failure>
    @usableFromInline typealias Table = SubjectSubscriberTable<Element, Failure>

    /// One thing to deliver, in the order the subject accepted it.
    @usableFromInline
    enum Event: Sendable {
        /// A value for every subscriber that has joined.
        case value(Element)
        /// The completion for every subscriber that has joined; they are released then.
        case completion(FlowCompletion<Failure>)
        /// A new subscriber: it receives `replay` (what the buffer held when it subscribed),
        /// then `completion` if the subject had completed, or else joins the subscribers.
        case subscription(Subscriber, replay: [Element], completion: FlowCompletion<Failure>?)
    }

    /// What the caller does once it has unlocked.
    @usableFromInline
    enum Action {
        /// Nothing: the event was ignored (sent after the completion), or queued for the
        /// thread that is delivering, or the queue is empty.
        case none
        /// The caller is the deliverer: deliver `event`, then ask ``next()`` for the
        /// following event. `recipients`, for a value or the completion, is the list lent by
        /// the table (not retained: the state keeps it alive until then).
        case deliver(Event, to: Unmanaged<Subscribers>?)
    }

    /// Every subscriber, joining or joined. The joined ones are kept while the completion is
    /// delivered (so that a handler can still remove one), released by
    /// ``completionDelivered()``.
    @usableFromInline var subscribers = Table()
    @usableFromInline var buffer: ReplayBuffer<Element>
    /// Whether a late subscriber to a completed subject gets the buffer before the
    /// completion (a replay subject) or the completion alone (a behavior subject).
    @usableFromInline let replaysAfterCompletion: Bool
    /// Set when the completion is accepted, before it is delivered.
    @usableFromInline var completion: FlowCompletion<Failure>?
    @usableFromInline var isDelivering = false
    /// The deliverer's thread, while `isDelivering`.
    @usableFromInline var deliverer: ThreadIdentity?
    /// Events accepted while a deliverer was busy, oldest first. An event leaves the queue when
    /// it is taken, so the queue never releases a value under the lock (whose `deinit` is user
    /// code).
    @usableFromInline var queue = RingBuffer<Event>()

    @inlinable
    init(bufferSize: Int, initial: [Element], replaysAfterCompletion: Bool) {
        buffer = ReplayBuffer(capacity: bufferSize, initial: initial)
        self.replaysAfterCompletion = replaysAfterCompletion
    }

    // MARK: Accepting events

    /// A value was sent. When the caller becomes the deliverer, it gets the subscribers to
    /// deliver `value` to (then it asks ``next()``); otherwise `nil`, and the value is queued
    /// or ignored. `evicted` is the value the buffer no longer holds, for the caller to
    /// release after unlocking.
    ///
    /// The fast path of every subject: no event is built, nothing is copied or retained.
    @inlinable
    mutating func send(_ value: Element) -> (recipients: Unmanaged<Subscribers>?, evicted: Element?) {
        guard completion == nil else { return (nil, nil) }
        let evicted = buffer.append(value)
        guard claim() else {
            enqueue(.value(value))
            return (nil, evicted)
        }
        return (subscribers.lend(), evicted)
    }

    /// The subject finished or failed; only the first completion counts.
    @inlinable
    mutating func complete(_ completion: FlowCompletion<Failure>) -> Action {
        guard self.completion == nil else { return .none }
        self.completion = completion
        return submit(.completion(completion))
    }

    /// A new subscriber, known to the subject (so that cancelling it removes it) before its
    /// subscription event is queued by ``subscribe(_:)``.
    @inlinable
    mutating func register(_ downstream: FlowSubscriber<Element, Failure>) -> Subscriber {
        Subscriber(downstream, id: subscribers.register())
    }

    /// A registered subscriber's turn in the queue: it gets the buffer as it is now. If it was
    /// cancelled since it registered, the event is delivered as nothing.
    @inlinable
    mutating func subscribe(_ subscriber: Subscriber) -> Action {
        let replay = completion == nil || replaysAfterCompletion ? buffer.elements : []
        return submit(.subscription(subscriber, replay: replay, completion: completion))
    }

    /// ``subscribe(_:)``, joining the subscriber at once when its subscription event would
    /// hand it nothing and be delivered at once: no value to replay, no completion, no event
    /// being delivered. Then the action is `.none`, and `replaced` is a list the join replaced,
    /// for the caller to release after unlocking.
    @inlinable
    mutating func subscribeJoiningAtOnce(_ subscriber: Subscriber) -> (action: Action, replaced: Subscribers?) {
        guard completion == nil, buffer.isEmpty, !isDelivering else { return (subscribe(subscriber), nil) }
        return (.none, subscribers.admit(subscriber))
    }

    // MARK: Delivering

    /// The deliverer finished an event: the next one, or `.none` (and nobody delivers any
    /// more) when the queue is empty. `retired` is the list the deliverer went through if it
    /// has been replaced meanwhile, for the caller to release after unlocking.
    @inlinable
    mutating func next() -> (action: Action, retired: Subscribers?) {
        guard isDelivering else {
            preconditionFailure("Internal inconsistency: next() called by a thread that is not delivering")
        }
        let retired = subscribers.giveBack()
        guard !queue.isEmpty else {
            isDelivering = false
            deliverer = nil
            return (.none, retired)
        }
        return (takeNext(), retired)
    }

    /// Takes the event at the head of the queue.
    @inlinable @inline(never)
    mutating func takeNext() -> Action {
        deliver(queue.removeFirst())
    }

    /// Whether `subscriber` is still waiting to join (it was not cancelled during its replay).
    @inlinable
    func isJoining(_ subscriber: Subscriber) -> Bool {
        subscribers.isJoining(subscriber.id)
    }

    /// A subscriber's replay has been delivered and the subject had not completed when it
    /// subscribed: from now on it receives what is sent (a completion accepted since then is
    /// queued behind it, so it gets that too). Not if it was cancelled in the meantime.
    /// Returns the list it replaced, if any, for the caller to release after unlocking.
    @inlinable
    mutating func admit(_ subscriber: Subscriber) -> Subscribers? {
        subscribers.admit(subscriber)
    }

    /// A subscriber's replay has been delivered and the subject had completed when it
    /// subscribed: whether it should get the completion (it was not cancelled). The caller
    /// still holds it, so nothing is released here.
    @inlinable
    mutating func leave(_ subscriber: Subscriber) -> Bool {
        subscribers.leave(subscriber.id)
    }

    /// The completion has been delivered: the subject holds no subscriber any more. Returns
    /// the list it held, if the deliverer is not going through it, for the caller to release
    /// after unlocking.
    @inlinable
    mutating func completionDelivered() -> Subscribers? {
        subscribers.removeAllJoined()
    }

    /// A subscriber cancelled (or wants no more): it gets nothing from now on. Returns it, and
    /// the list it was in if that was replaced, for the caller to release after unlocking.
    ///
    /// Every event taken from now on leaves it out. The event in flight, if any, was taken
    /// before, with it among the recipients: when this call comes from the delivering thread
    /// (a handler cancelled itself or another subscriber), the subscriber is marked, and the
    /// deliverer, on this same thread, skips it for the rest of that event. A call from
    /// another thread leaves the mark alone (the deliverer reads it without the lock, so only
    /// its own thread may write it): the event in flight may still reach it, the exception
    /// contract 3 allows. (One still joining is not marked: its replay checks, under the lock,
    /// that it is still joining.)
    @inlinable
    mutating func remove(_ id: SubjectSubscriberID) -> (removed: Subscriber?, list: Subscribers?) {
        let (removed, list) = subscribers.remove(id)
        if let removed, isDelivering, let deliverer, deliverer.isCurrent {
            removed.isRemovedDuringDelivery = true
        }
        return (removed, list)
    }

    // MARK: Internals

    /// Makes the caller the deliverer, unless another thread is.
    @inlinable
    mutating func claim() -> Bool {
        guard !isDelivering else { return false }
        isDelivering = true
        deliverer = .current
        return true
    }

    /// Queues `event`, or makes the caller the deliverer when nobody is delivering.
    @inlinable
    mutating func submit(_ event: Event) -> Action {
        guard claim() else {
            enqueue(event)
            return .none
        }
        return deliver(event)
    }

    /// Queues an event for the thread that is delivering: out of line, so that the common
    /// case (nobody is delivering) stays small enough to be inlined into its callers.
    @inlinable @inline(never)
    mutating func enqueue(_ event: Event) {
        queue.append(event)
    }

    /// The deliverer's next event, with the subscribers lent for a value or the completion.
    @inlinable
    mutating func deliver(_ event: Event) -> Action {
        if case .subscription = event { return .deliver(event, to: nil) }
        return .deliver(event, to: subscribers.lend())
    }
}
