/// Delivers events one at a time, in submission order, from any number of threads, without
/// holding a lock while delivering (contract 3 and the lock rule).
///
/// The first thread to submit while nobody delivers becomes the deliverer: it delivers its
/// event, then drains whatever other threads (or the receiver itself, re-entrantly) queued in
/// the meantime. The others return at once. No event is lost and none is delivered twice.
///
/// ```swift
/// let drain = SerialDrain<Int> { drain, value in print(value) }
/// drain.submit(1)   // from any thread
/// ```
///
/// Unchecked: its mutable state sits behind its lock, and its receiver runs on one thread at a
/// time (see ``Receiver``).
@usableFromInline
final class SerialDrain<Event: Sendable>: @unchecked Sendable {
    /// The receiver, in an object of its own: the deliverer calls it without retaining it,
    /// because ``close()`` leaves it to the deliverer to release (one retain and release per
    /// event saved, each an atomic operation).
    ///
    /// Unchecked: `deliver` is not `@Sendable`, because operators capture per-subscription state
    /// (``SerialState``) in it, but it never runs on two threads at once: only the one deliverer
    /// that the drain's `delivering` flag (set under its lock) admits calls it.
    @usableFromInline
    final class Receiver: @unchecked Sendable {
        @usableFromInline let deliver: (SerialDrain, Event) -> Void

        @inlinable
        init(_ deliver: @escaping (SerialDrain, Event) -> Void) {
            self.deliver = deliver
        }
    }

    @usableFromInline
    struct State: Sendable {
        /// Released once closed: by ``close()``, or by the deliverer if one is delivering then.
        @usableFromInline var receiver: Receiver?
        @usableFromInline var closed = false
        @usableFromInline var delivering = false
        /// Events waiting. Taking one moves it out, so nothing is released under the lock.
        @usableFromInline var queue = RingBuffer<Event>()

        @inlinable
        init(deliver: @escaping (SerialDrain, Event) -> Void) {
            self.receiver = Receiver(deliver)
        }
    }

    @usableFromInline let state: Lock<State>

    /// `deliver` is called for each event, never concurrently with itself, with this drain
    /// (so a receiver can close the drain it belongs to without a reference of its own).
    @inlinable
    init(deliver: @escaping (SerialDrain, Event) -> Void) {
        self.state = .make(State(deliver: deliver))
    }

    /// Queues `event`, and delivers the queue if no other thread is delivering. Events
    /// submitted after ``close()`` are dropped. Returns `false` when the drain is closed (by
    /// now, or by the delivery this call made), so a synchronous source can stop.
    @inlinable
    @discardableResult
    func submit(_ event: Event) -> Bool {
        let (receiver, queued) = state.withLock { state -> (Unmanaged<Receiver>?, Bool) in
            guard !state.closed, let receiver = state.receiver else { return (nil, false) }
            if state.delivering {
                state.queue.append(event)
                return (nil, true)
            }
            state.delivering = true
            // Not retained: while `delivering` is set, only this thread releases it.
            return (Unmanaged.passUnretained(receiver), false)
        }
        guard let receiver else { return queued }
        receiver._withUnsafeGuaranteedRef { $0.deliver(self, event) }
        var open = true
        var released: Receiver?
        while let next = state.withLock({ state -> Event? in
            guard !state.closed, let next = state.queue.popFirst() else {
                open = !state.closed
                state.delivering = false
                if state.closed { released = state.receiver.take() }  // closed while delivering
                return nil
            }
            return next
        }) {
            receiver._withUnsafeGuaranteedRef { $0.deliver(self, next) }
        }
        _ = released  // released outside the lock
        return open
    }

    /// Whether a thread is delivering at this moment: for an owner that must not start work
    /// from inside a delivery, and leaves it to the deliverer once it has delivered.
    @inlinable
    var isDelivering: Bool {
        state.withLock { $0.delivering }
    }

    /// Whether the drain is closed: later submissions are dropped.
    @inlinable
    var isClosed: Bool {
        state.withLock { $0.closed }
    }

    /// Drops queued events and every later submission, and releases the receiver (after a
    /// completion or a cancellation): at once, or when the thread delivering at this moment has
    /// finished its event, which still arrives.
    @inlinable
    func close() {
        let released = state.withLock { state -> (Receiver?, RingBuffer<Event>) in
            state.closed = true
            return (state.delivering ? nil : state.receiver.take(), state.queue.takeAll())
        }
        _ = released  // released outside the lock
    }
}
