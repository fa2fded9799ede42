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
/// accepted, in the same critical section that queues it, so `BehaviorSubject.value` reads
/// what the caller just sent even while another thread is still delivering, and the replay
/// handed to a new subscriber is exactly the values queued before it.
///
/// This is `SerialDrain` with the subject's state inside the same lock: a separate drain
/// would need a second critical section, and two threads could then update the state in one
/// order and queue their events in the other.
///
/// ```swift
/// var machine = SubjectStateMachine<Int, Never>(bufferSize: 1, initial: [0], replaysAfterCompletion: false)
/// let (action, evicted) = machine.send(1)   // .deliver(.value(1), to: []), evicted 0
/// ```
@usableFromInline
struct SubjectStateMachine<Element: Sendable, Failure: Error> {
    @usableFromInline typealias Subscriber = SubjectSubscriber<Element, Failure>

    /// One thing to deliver, in the order the subject accepted it.
    @usableFromInline
    enum Event {
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
        /// The caller is the deliverer: deliver `event` to `subscribers` (a snapshot), then
        /// ask ``next()`` for the following event.
        case deliver(Event, to: [Subscriber])
    }

    /// The subscribers that have joined: their subscription event has been delivered.
    @usableFromInline var subscribers: [Subscriber] = []
    @usableFromInline var buffer: ReplayBuffer<Element>
    /// Whether a late subscriber to a completed subject gets the buffer before the
    /// completion (a replay subject) or the completion alone (a behavior subject).
    @usableFromInline let replaysAfterCompletion: Bool
    /// Set when the completion is accepted, before it is delivered.
    @usableFromInline var completion: FlowCompletion<Failure>?
    @usableFromInline var isDelivering = false
    /// Events accepted while a deliverer was busy. A slot is emptied when its event is taken,
    /// so clearing the queue under the lock never releases a value (whose `deinit` is user code).
    @usableFromInline var queue: [Event?] = []
    @usableFromInline var head = 0

    @inlinable
    init(bufferSize: Int, initial: [Element], replaysAfterCompletion: Bool) {
        buffer = ReplayBuffer(capacity: bufferSize, initial: initial)
        self.replaysAfterCompletion = replaysAfterCompletion
    }

    /// A value was sent. Returns what to do, and the value the buffer no longer holds, for
    /// the caller to release after unlocking.
    @inlinable
    mutating func send(_ value: Element) -> (action: Action, evicted: Element?) {
        guard completion == nil else { return (.none, nil) }
        let evicted = buffer.append(value)
        return (submit(.value(value)), evicted)
    }

    /// The subject finished or failed; only the first completion counts.
    @inlinable
    mutating func complete(_ completion: FlowCompletion<Failure>) -> Action {
        guard self.completion == nil else { return .none }
        self.completion = completion
        return submit(.completion(completion))
    }

    /// A subscriber arrived: it gets the buffer as it is now, in its place in the queue.
    @inlinable
    mutating func subscribe(_ subscriber: Subscriber) -> Action {
        let replay = completion == nil || replaysAfterCompletion ? buffer.elements : []
        return submit(.subscription(subscriber, replay: replay, completion: completion))
    }

    /// The deliverer finished an event: the next one, or `.none` (and nobody delivers any
    /// more) when the queue is empty.
    @inlinable
    mutating func next() -> Action {
        guard isDelivering else {
            preconditionFailure("Internal inconsistency: next() called by a thread that is not delivering")
        }
        guard head < queue.count, let event = queue[head] else {
            isDelivering = false
            queue.removeAll(keepingCapacity: true)
            head = 0
            return .none
        }
        queue[head] = nil
        head += 1
        return .deliver(event, to: recipients(of: event))
    }

    /// A subscriber's replay has been delivered and the subject had not completed when it
    /// subscribed: from now on it receives what is sent (a completion accepted since then is
    /// queued behind it, so it gets that too). Not if it was cancelled in the meantime.
    @inlinable
    mutating func admit(_ subscriber: Subscriber) {
        if subscriber.isActive { subscribers.append(subscriber) }
    }

    /// A subscriber cancelled (or wants no more): it gets nothing from now on, and the
    /// subject no longer holds it. The caller still holds it, so nothing is released here.
    @inlinable
    mutating func remove(_ subscriber: Subscriber) {
        _ = subscriber.deactivate()
        if let index = subscribers.firstIndex(where: { $0 === subscriber }) {
            subscribers.remove(at: index)
        }
    }

    /// Queues `event`, or makes the caller the deliverer when nobody is delivering.
    @inlinable
    mutating func submit(_ event: Event) -> Action {
        if isDelivering {
            queue.append(event)
            return .none
        }
        isDelivering = true
        return .deliver(event, to: recipients(of: event))
    }

    /// Who receives `event`: a snapshot of the subscribers that have joined. After the
    /// completion the subject holds none.
    @inlinable
    mutating func recipients(of event: Event) -> [Subscriber] {
        switch event {
        case .value:
            return subscribers
        case .completion:
            defer { subscribers = [] }
            return subscribers
        case .subscription:
            return []
        }
    }
}
