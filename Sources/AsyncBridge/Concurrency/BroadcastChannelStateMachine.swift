/// The decisions of a ``BroadcastChannel``, taken under its one lock: which consumers get a
/// value, who is resumed, what is dropped, and where values wait while nobody iterates.
///
/// Each consumer has its own ``ConsumerBufferStateMachine``, all under the channel's lock: a
/// send is one critical section however many consumers, and all see sends in the same order.
@usableFromInline
struct BroadcastChannelStateMachine<Element: Sendable, Failure: Error>: Sendable {
    @usableFromInline typealias Consumer = ConsumerBufferStateMachine<Element, Failure>

    /// One consumer that has started iterating and not left.
    @usableFromInline
    struct Slot: Sendable {
        @usableFromInline let id: UInt64
        @usableFromInline var buffer: Consumer

        @inlinable
        init(id: UInt64, buffer: Consumer) {
            self.id = id
            self.buffer = buffer
        }
    }

    /// The consumers, in the order they started. Few, so found by a linear search.
    @usableFromInline var consumers: [Slot] = []
    /// The values sent while no consumer iterated (and the completion, if it came then), kept
    /// for the next consumer to start. Only ever non-`nil` while `consumers` is empty.
    @usableFromInline var backlog: Consumer?
    /// The channel's completion, once it has come: later sends are ignored, later consumers
    /// get it at once (after the backlog, for the first of them).
    @usableFromInline var completion: FlowCompletion<Failure>?
    @usableFromInline var nextID: UInt64 = 0
    @usableFromInline let limit: BufferLimit
    /// Tasks in ``BroadcastChannel/waitForConsumers(_:)``: each until that many consumers iterate.
    @usableFromInline var consumerWaiters: [ConsumerWaiter] = []

    /// A task waiting for `count` consumers.
    @usableFromInline
    struct ConsumerWaiter: Sendable {
        @usableFromInline let id: UInt64
        @usableFromInline let count: Int
        @usableFromInline let continuation: CheckedContinuation<Void, Never>
    }

    @inlinable
    init(limit: BufferLimit) {
        self.limit = limit
    }

    // MARK: Sending

    /// One thing to do for one consumer after unlocking.
    @usableFromInline
    enum Delivery {
        case resume(Consumer.Waiter, Element)
        case drop(Element)
    }

    /// What a send does after unlocking: the first delivery inline, so that the common case
    /// (one consumer to resume) allocates nothing.
    @usableFromInline
    struct Deliveries {
        @usableFromInline var first: Delivery?
        @usableFromInline var more: [Delivery] = []

        @inlinable
        init() {}

        @inlinable
        mutating func append(_ delivery: Delivery) {
            if first == nil { first = delivery } else { more.append(delivery) }
        }
    }

    @inlinable
    mutating func send(_ value: Element) -> Deliveries {
        var deliveries = Deliveries()
        guard completion == nil else { return deliveries }
        if consumers.isEmpty {
            if backlog == nil { backlog = Consumer(limit: limit) }
            Self.receive(value, into: &backlog!, deliveries: &deliveries)
            return deliveries
        }
        for index in consumers.indices {
            Self.receive(value, into: &consumers[index].buffer, deliveries: &deliveries)
        }
        return deliveries
    }

    @inlinable
    static func receive(_ value: Element, into buffer: inout Consumer, deliveries: inout Deliveries) {
        switch buffer.receive(value) {
        case .none, .stop:
            break  // `.stop`: a consumer that had its completion; none come after one
        case .resume(let waiter, let value):
            deliveries.append(.resume(waiter, value))
        case .drop(let dropped):
            deliveries.append(.drop(dropped))
        case .hold:
            preconditionFailure("Internal inconsistency: a channel's buffer held its sender")
        }
    }

    /// The channel completes: returns the suspended consumers to resume with the completion.
    /// Only the first completion counts.
    @inlinable
    mutating func complete(_ completion: FlowCompletion<Failure>) -> [Consumer.Waiter] {
        guard self.completion == nil else { return [] }
        self.completion = completion
        if consumers.isEmpty {
            if backlog == nil { backlog = Consumer(limit: limit) }
            _ = backlog!.complete(completion)
            return []
        }
        var waiters: [Consumer.Waiter] = []
        for index in consumers.indices {
            if let waiter = consumers[index].buffer.complete(completion) { waiters.append(waiter) }
        }
        return waiters
    }

    // MARK: Consumers

    /// A consumer starts: it takes the backlog if any, else a new buffer (already completed if
    /// the channel has).
    @inlinable
    mutating func register() -> UInt64 {
        nextID += 1
        var buffer: Consumer
        if let backlog {
            buffer = backlog
            self.backlog = nil
        } else {
            buffer = Consumer(limit: limit)
            if let completion { _ = buffer.complete(completion) }
        }
        consumers.append(Slot(id: nextID, buffer: buffer))
        return nextID
    }

    /// Whether `count` consumers iterate; if not, keeps `continuation` until they do.
    @usableFromInline
    mutating func waitForConsumers(_ count: Int, id: UInt64, _ continuation: CheckedContinuation<Void, Never>) -> Bool {
        if consumers.count >= count { return true }
        consumerWaiters.append(ConsumerWaiter(id: id, count: count, continuation: continuation))
        return false
    }

    /// The waiters the consumers iterating now satisfy, taken out to be resumed after unlocking.
    @usableFromInline
    mutating func takeSatisfiedConsumerWaiters() -> [ConsumerWaiter] {
        guard !consumerWaiters.isEmpty else { return [] }
        let iterating = consumers.count
        let satisfied = consumerWaiters.filter { $0.count <= iterating }
        consumerWaiters.removeAll { $0.count <= iterating }
        return satisfied
    }

    /// Waiter `id` gives up (its task was cancelled); returns it to resume, if it still waited.
    @usableFromInline
    mutating func removeConsumerWaiter(_ id: UInt64) -> ConsumerWaiter? {
        guard let index = consumerWaiters.firstIndex(where: { $0.id == id }) else { return nil }
        return consumerWaiters.remove(at: index)
    }

    /// Runs `body` on consumer `id`'s buffer, or on an ended one if it has left.
    @inlinable
    mutating func withConsumer<Result>(_ id: UInt64, _ body: (inout Consumer) -> Result) -> Result {
        if let index = consumers.firstIndex(where: { $0.id == id }) {
            return body(&consumers[index].buffer)
        }
        var left = Consumer(limit: .unbounded)
        _ = left.cancel()
        return body(&left)
    }

    /// Consumer `id` leaves; returns what its departure leaves to do (nothing if it had left).
    @inlinable
    mutating func remove(_ id: UInt64) -> Consumer.Departure {
        guard let index = consumers.firstIndex(where: { $0.id == id }) else { return Consumer.Departure() }
        var slot = consumers.remove(at: index)
        return slot.buffer.cancel()
    }
}
