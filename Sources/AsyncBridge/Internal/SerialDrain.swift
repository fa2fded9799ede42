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
@usableFromInline
final class SerialDrain<Event>: @unchecked Sendable {
    /// The receiver, in a struct so that handing it out of the generic `withLock` costs no
    /// reabstraction thunk (an allocation per event).
    @usableFromInline
    struct Receiver {
        @usableFromInline let deliver: (SerialDrain, Event) -> Void

        @inlinable
        init(_ deliver: @escaping (SerialDrain, Event) -> Void) {
            self.deliver = deliver
        }
    }

    @usableFromInline
    struct State {
        /// `nil` once closed: the receiver, and all it captured, is released then.
        @usableFromInline var receiver: Receiver?
        @usableFromInline var delivering = false
        @usableFromInline var queue: [Event] = []
        @usableFromInline var head = 0

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
        let (receiver, isOpenNow) = state.withLock { state -> (Receiver?, Bool) in
            guard let receiver = state.receiver else { return (nil, false) }
            if state.delivering {
                state.queue.append(event)
                return (nil, true)
            }
            state.delivering = true
            return (receiver, true)
        }
        guard let deliver = receiver?.deliver else { return isOpenNow }
        deliver(self, event)
        var isOpen = true
        while let next = state.withLock({ state -> Event? in
            guard state.receiver != nil, state.head < state.queue.count else {
                isOpen = state.receiver != nil
                state.delivering = false
                if state.head != 0 {  // else the queue is empty already: nothing to reset
                    state.queue.removeAll(keepingCapacity: true)
                    state.head = 0
                }
                return nil
            }
            defer { state.head += 1 }
            return state.queue[state.head]
        }) {
            deliver(self, next)
        }
        return isOpen
    }

    /// Drops queued events and every later submission, and releases the receiver (after a
    /// completion or a cancellation). An event being delivered on another thread at this
    /// moment still arrives.
    @inlinable
    func close() {
        let released = state.withLock { state -> (Receiver?, [Event]) in
            defer {
                state.receiver = nil
                state.queue = []
                state.head = 0
            }
            return (state.receiver, state.queue)
        }
        _ = released  // released outside the lock
    }
}
