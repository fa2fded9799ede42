import Dispatch

/// How many values one consumer's buffer holds, and what a full buffer does: the internal
/// form of ``FlowBufferingPolicy`` and ``ChannelBufferingPolicy``.
@usableFromInline
enum BufferLimit: Sendable, Hashable {
    /// Keeps every value; the consumer takes the whole buffer at once.
    case unbounded
    /// Keeps the newest `n` values: a value arriving at a full buffer evicts the oldest.
    case newest(Int)
    /// Keeps the oldest `n` values: a value arriving at a full buffer is dropped.
    case oldest(Int)
    /// Keeps `n` values, then holds the producer where it may be held (see
    /// ``ConsumerBufferStateMachine/receive(_:)``); otherwise keeps buffering.
    case blocking(Int)
}

/// One consumer's buffer between a producer that pushes synchronously (a flow's subscriber, a
/// channel's `send`) and a consumer that pulls with `await`.
///
/// Decisions only, no lock and no side effect: the owner (`FlowValuesStorage`, or a
/// `BroadcastChannel` per consumer) calls it under its lock and carries out the returned
/// action after unlocking (resume the consumer, wake a held producer, call `onDrop`).
///
/// Unbounded, the consumer takes the whole buffer at once (``poll(into:)``); bounded policies
/// hand out one value per critical section, so the limit counts exactly the values not taken.
@usableFromInline
struct ConsumerBufferStateMachine<Element: Sendable, Failure: Error>: Sendable {
    /// The consumer suspended in `next()`: resumed with a value, the completion, or `nil` when
    /// it has left.
    @usableFromInline typealias Waiter = UnsafeContinuation<FlowEvent<Element, Failure>?, Never>

    /// The lifecycle. Values wait in ``buffer`` in `receiving` and `draining`.
    @usableFromInline
    enum State: Sendable {
        /// Values are coming. `waiter` is the consumer suspended in `next()` (the buffer is then
        /// empty); `held` is a producer waiting for room (`.blocking` only; the buffer is then
        /// full). Never both.
        case receiving(waiter: Waiter?, held: DispatchSemaphore?)
        /// The source has completed; the consumer takes what is buffered, then `completion`.
        case draining(FlowCompletion<Failure>)
        /// The consumer has had its completion, or has left. Everything later is ignored.
        case ended
    }

    @usableFromInline var state: State = .receiving(waiter: nil, held: nil)
    @usableFromInline var buffer = RingBuffer<Element>()
    @usableFromInline let limit: BufferLimit
    /// Whether the source is being subscribed (`makeAsyncIterator()` has not returned). No
    /// producer is held meanwhile: the subscribing thread may be the producer, or wait for it,
    /// and the consumer cannot take a value before the subscribe returns.
    @usableFromInline var isSubscribing = false

    @inlinable
    init(limit: BufferLimit) {
        self.limit = limit
    }

    // MARK: Producer

    /// What the producer does with a value, after unlocking.
    @usableFromInline
    enum ReceiveAction {
        /// Nothing: the value is buffered.
        case none
        /// Resume the suspended consumer with the value.
        case resume(Waiter, Element)
        /// Report a value dropped by the policy (the new one, or the evicted oldest).
        case drop(Element)
        /// The consumer has ended: the value is ignored; tell the source to stop.
        case stop
        /// The buffer is full: wait on the semaphore, then offer the value again.
        case hold(DispatchSemaphore)
    }

    /// A value from the producer. A full `.blocking` buffer holds the producer if
    /// ``producerMayBeHeld``, and otherwise keeps the value beyond the limit; a held producer
    /// waits until the buffer is below the limit again, values kept beyond it included.
    @inlinable
    mutating func receive(_ value: Element) -> ReceiveAction {
        switch state {
        case .receiving(let waiter?, _):
            state = .receiving(waiter: nil, held: nil)
            return .resume(waiter, value)
        case .receiving(nil, _):
            switch limit {
            case .unbounded:
                buffer.append(value)
                return .none
            case .oldest(let size):
                guard buffer.count < size else { return .drop(value) }
                buffer.append(value)
                return .none
            case .newest(let size):
                guard size > 0 else { return .drop(value) }
                let evicted = buffer.count == size ? buffer.removeFirst() : nil
                buffer.append(value)
                return evicted.map { .drop($0) } ?? .none
            case .blocking(let size):
                guard buffer.count >= size, producerMayBeHeld else {
                    buffer.append(value)
                    return .none
                }
                let semaphore = DispatchSemaphore(value: 0)
                state = .receiving(waiter: nil, held: semaphore)
                return .hold(semaphore)
            }
        case .draining, .ended:
            return .stop
        }
    }

    /// Evaluated only at a full `.blocking` buffer.
    @inlinable
    var producerMayBeHeld: Bool {
        !isSubscribing && currentThreadMayBeHeld()
    }

    /// The source completed. Returns the suspended consumer to resume with the completion.
    @inlinable
    mutating func complete(_ completion: FlowCompletion<Failure>) -> Waiter? {
        switch state {
        case .receiving(let waiter?, _):
            state = .ended
            return waiter
        case .receiving(nil, let held):
            if held != nil {
                preconditionFailure("Internal inconsistency: a held producer completed its flow")
            }
            state = .draining(completion)
            return nil
        case .draining, .ended:
            return nil
        }
    }

    // MARK: Consumer

    /// What the consumer's synchronous attempt found.
    @usableFromInline
    enum Poll {
        /// The next value; `release` is a held producer to wake.
        case value(Element, release: DispatchSemaphore?)
        /// Unbounded: the buffer was swapped into the consumer's batch, which is not empty.
        case refilled
        /// The last event: `.finished`, `.failure`, or `nil` after the consumer left.
        case end(FlowEvent<Element, Failure>?)
        /// Nothing yet: the consumer must wait.
        case empty
    }

    /// The consumer asks for the next value without waiting. `batch` is its own (empty) ring;
    /// with the unbounded policy it receives the whole buffer.
    @inlinable
    mutating func poll(into batch: inout RingBuffer<Element>) -> Poll {
        switch state {
        case .receiving(nil, let held):
            if buffer.isEmpty { return .empty }
            if case .unbounded = limit {
                swap(&buffer, &batch)
                return .refilled
            }
            if held != nil { state = .receiving(waiter: nil, held: nil) }
            return .value(buffer.removeFirst(), release: held)
        case .receiving(.some, _):
            preconditionFailure("Internal inconsistency: a consumer polled while it was waiting")
        case .draining(let completion):
            if !buffer.isEmpty {
                if case .unbounded = limit {
                    swap(&buffer, &batch)
                    return .refilled
                }
                return .value(buffer.removeFirst(), release: nil)
            }
            state = .ended
            return .end(FlowEvent(completion))
        case .ended:
            return .end(nil)
        }
    }

    /// What happens to a consumer about to suspend.
    @usableFromInline
    enum Install {
        /// It waits; the producer, the completion or a cancellation will resume it.
        case installed
        /// Resume it at once with this event (`nil`: it has left); `release` is a held
        /// producer to wake.
        case resume(FlowEvent<Element, Failure>?, release: DispatchSemaphore?)
    }

    /// The consumer suspends, unless something arrived since its poll (or it was cancelled).
    @inlinable
    mutating func install(_ waiter: Waiter) -> Install {
        switch state {
        case .receiving(nil, let held):
            if buffer.isEmpty {
                state = .receiving(waiter: waiter, held: nil)
                return .installed
            }
            if held != nil { state = .receiving(waiter: nil, held: nil) }
            return .resume(.value(buffer.removeFirst()), release: held)
        case .receiving(.some, _):
            preconditionFailure("Internal inconsistency: a consumer waited twice at once")
        case .draining(let completion):
            if !buffer.isEmpty { return .resume(.value(buffer.removeFirst()), release: nil) }
            state = .ended
            return .resume(FlowEvent(completion), release: nil)
        case .ended:
            return .resume(nil, release: nil)
        }
    }

    /// What a consumer leaving leaves to do.
    @usableFromInline
    struct Departure {
        /// Whether it was still there: its source is to be cancelled.
        @usableFromInline var wasActive = false
        /// The consumer, suspended: resume it with `nil`.
        @usableFromInline var waiter: Waiter?
        /// A held producer: wake it (it then finds the consumer gone).
        @usableFromInline var held: DispatchSemaphore?
        /// The values it did not take, to release outside the lock.
        @usableFromInline var discarded = RingBuffer<Element>()

        @inlinable
        init() {}
    }

    /// The consumer leaves (task cancelled, iterator released); buffered values are discarded.
    @inlinable
    mutating func cancel() -> Departure {
        var departure = Departure()
        switch state {
        case .receiving(let waiter, let held):
            departure.wasActive = true
            departure.waiter = waiter
            departure.held = held
        case .draining:
            break
        case .ended:
            return departure
        }
        state = .ended
        swap(&buffer, &departure.discarded)
        return departure
    }
}
