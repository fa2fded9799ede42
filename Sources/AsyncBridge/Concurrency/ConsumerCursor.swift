#if canImport(Darwin)
import Darwin
#endif
import Dispatch

/// An owner of consumer buffers (``ConsumerBufferStateMachine``): `FlowValuesStorage` (one
/// consumer, one subscription) and `BroadcastChannel`'s storage (many consumers under one
/// lock). ``ConsumerCursor`` pulls through it, so both share the consumer side.
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

    /// Consumer `id` leaves (its task was cancelled, or its iterator released): its machine
    /// ends, a suspended consumer gets `nil`, a held producer is woken, and its source (a
    /// subscription) is cancelled. Idempotent; callable from any thread.
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
/// held until the consumer takes a value.
///
/// Not when a Swift task runs on it: holding a thread of the cooperative pool (or the one an
/// actor's executor runs on) can starve the very consumer it waits for, and the consumer's
/// own task sending into its own buffer would wait for itself. Not on the main thread: a
/// consumer on the main actor needs it (and a held main thread freezes an app).
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
/// Marks the main queue, to recognise the main thread (on Linux, `getSpecific` finds the main
/// queue's value on the main thread, also outside a block).
let mainQueueKey: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
}()
#endif

/// Releasing a consumer's lease makes it leave: what makes a released iterator cancel its
/// subscription (or leave its channel). One per iteration.
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
///
/// ```swift
/// var cursor = ConsumerCursor(lease: ConsumerLease(host: storage, id: 0))
/// while case .value(let value)? = await cursor.next(isolation: nil) { print(value) }
/// ```
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

    /// The next event: a value, the completion, or `nil` once the consumer has left (its
    /// task was cancelled) or had its completion.
    ///
    /// Cancellation of the calling task is checked before every value: a cancelled consumer
    /// leaves at once (its buffer is discarded and its source cancelled) and gets `nil`.
    /// Always inlined: out of line, an async function with an `isolated` parameter costs a
    /// task-allocated frame and an executor switch per call, several times the rest.
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

    /// ``next(isolation:)`` as an async iterator hands it out: the value; `nil` after the
    /// finish or a cancellation; the failure thrown, once.
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

    /// The consumer leaves (its task was cancelled): `nil`.
    @inlinable
    mutating func leave() -> Event? {
        lease.host.cancel(lease.id)
        batch = RingBuffer()
        return nil
    }
}
