#if canImport(Darwin)
import Darwin
#endif
import Dispatch

/// An owner of consumer buffers (``ConsumerBufferStateMachine``) that ``ConsumerCursor`` pulls
/// through: `FlowValuesStorage` (one consumer) and `BroadcastChannelStorage` (many, one lock).
@usableFromInline
protocol ConsumerBufferHost: AnyObject, Sendable {
    associatedtype Element: Sendable
    associatedtype Failure: Error

    /// Runs `body` under the host's lock on the machine of consumer `id` (an ended one if it
    /// is gone). `body` only decides: no user code, no resumption.
    func withMachine<Result>(
        of id: UInt64,
        _ body: (inout ConsumerBufferStateMachine<Element, Failure>) -> Result
    ) -> Result

    /// Consumer `id` leaves (task cancelled, iterator released): its machine ends, a suspended
    /// consumer gets `nil`, a held producer wakes, its source is cancelled. Idempotent; any thread.
    func cancel(_ id: UInt64)
}

extension ConsumerBufferHost {
    /// Carries out a departure after unlocking; returns whether the consumer was still active.
    @inlinable
    func perform(_ departure: ConsumerBufferStateMachine<Element, Failure>.Departure) -> Bool {
        departure.held?.signal()
        departure.waiter?.resume(returning: nil)
        return departure.wasActive
    }
}

/// Whether the calling thread, a producer facing a full `.blockingProducer` buffer, may be
/// held until the consumer takes a value. Not a thread running a Swift task (holding a pool or
/// executor thread can starve the consumer, or make its own task wait for itself), nor the
/// main thread (a main-actor consumer needs it; a held main thread freezes an app).
@usableFromInline
func currentThreadMayBeHeld() -> Bool {
    if withUnsafeCurrentTask(body: { $0 != nil }) { return false }
    #if canImport(Darwin)
    return pthread_main_np() == 0
    #else
    return DispatchQueue.getSpecific(key: mainQueueKey) == nil
    #endif
}

#if !canImport(Darwin)
/// Marks the main queue: on Linux, `getSpecific` finds its value on the main thread, also
/// outside a block.
let mainQueueKey: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
}()
#endif

/// One per iteration: releasing it (with the iterator) makes the consumer leave.
@usableFromInline
final class ConsumerLease<Host: ConsumerBufferHost>: Sendable {
    @usableFromInline let host: Host
    @usableFromInline let id: UInt64

    @inlinable
    init(host: Host, id: UInt64) {
        self.host = host
        self.id = id
    }

    deinit {
        host.cancel(id)
    }
}

/// The consumer side of a buffer, shared by every async iterator over one: a local batch
/// handed out without locking, one critical section when it runs dry, and a suspension only
/// when nothing is buffered.
@usableFromInline
struct ConsumerCursor<Host: ConsumerBufferHost> {
    @usableFromInline typealias Event = FlowEvent<Host.Element, Host.Failure>

    @usableFromInline let lease: ConsumerLease<Host>
    /// Values taken from the buffer in one go (unbounded policy), handed out in order.
    @usableFromInline var batch = RingBuffer<Host.Element>()

    @inlinable
    init(lease: ConsumerLease<Host>) {
        self.lease = lease
    }

    /// The next event: a value, the completion, or `nil` once the consumer has left or had its
    /// completion. Checks cancellation before every value: a cancelled consumer leaves at once
    /// (buffer discarded, source cancelled). Always inlined: out of line, an async function
    /// with an `isolated` parameter costs a task-allocated frame and an executor switch.
    @inlinable @inline(__always)
    mutating func next(isolation actor: isolated (any Actor)?) async -> Event? {
        if Task.isCancelled { return leave() }
        if !batch.isEmpty { return .value(batch.removeFirst()) }
        let id = lease.id
        switch lease.host.withMachine(of: id, { $0.poll(into: &batch) }) {
        case .value(let value, let release):
            release?.signal()
            return .value(value)
        case .refilled:
            return .value(batch.removeFirst())
        case .end(let event):
            return event
        case .empty:
            return await wait(isolation: actor)
        }
    }

    /// ``next(isolation:)`` as an iterator hands it out: `nil` at the finish or after leaving;
    /// the failure thrown once.
    @inlinable @inline(__always)
    mutating func nextElement(isolation actor: isolated (any Actor)?) async throws(Host.Failure) -> Host.Element? {
        switch await next(isolation: actor) {
        case .value(let value)?: return value
        case .failure(let error)?: throw error
        case .finished?, nil: return nil
        }
    }

    /// Suspends until a value, the completion or a cancellation arrives.
    @inlinable
    func wait(isolation actor: isolated (any Actor)?) async -> Event? {
        let host = lease.host, id = lease.id
        return await withTaskCancellationHandler {
            _ = actor  // capturing it keeps this closure on the caller's actor
            return await withUnsafeContinuation { (continuation: ConsumerBufferStateMachine<Host.Element, Host.Failure>.Waiter) in
                switch host.withMachine(of: id, { $0.install(continuation) }) {
                case .installed:
                    break
                case .resume(let event, let release):
                    release?.signal()
                    continuation.resume(returning: event)
                }
            }
        } onCancel: {
            host.cancel(id)
        }
    }

    /// The consumer's task was cancelled: it leaves.
    @inlinable
    mutating func leave() -> Event? {
        lease.host.cancel(lease.id)
        batch = RingBuffer()
        return nil
    }
}
