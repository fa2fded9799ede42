import Dispatch

/// The machinery behind one iteration of `flow.values`: one subscription to the flow, whose
/// values go into one consumer buffer (``ConsumerBufferStateMachine``) that the iterator
/// pulls from.
///
/// The subscriber's `receive` decides under the lock and acts after unlocking: it resumes the
/// suspended consumer, passes a dropped value to `onDrop`, or, at a full `.blockingProducer`
/// buffer, waits outside the lock until the consumer takes a value or leaves.
///
/// ```swift
/// let storage = FlowValuesStorage<Int, Never>(limit: .unbounded, onDrop: nil)
/// storage.start(Flow.sequence([1, 2, 3]))
/// var cursor = ConsumerCursor(lease: ConsumerLease(host: storage, id: 0))
/// ```
@usableFromInline
final class FlowValuesStorage<Element: Sendable, Failure: Error>: ConsumerBufferHost {
    @usableFromInline typealias Machine = ConsumerBufferStateMachine<Element, Failure>

    @usableFromInline let state: Lock<Machine>
    @usableFromInline let subscription = FlowSubscription()
    @usableFromInline let onDrop: (@Sendable (Element) -> Void)?

    @inlinable
    init(limit: BufferLimit, onDrop: (@Sendable (Element) -> Void)?) {
        state = .make(Machine(limit: limit))
        self.onDrop = onDrop
    }

    /// Subscribes to `flow`. No producer is held until the subscribe returns (see
    /// ``ConsumerBufferStateMachine/isSubscribing``). Inlinable so that the subscriber's
    /// closures, the per-value path, are specialised for the caller's types.
    @inlinable
    func start(_ flow: Flow<Element, Failure>) {
        state.withLock { $0.isSubscribing = true }
        flow.run(FlowSubscriber(
            subscription: subscription,
            receive: { [self] value in receive(value) },
            complete: { [self] completion in complete(completion) }
        ))
        state.withLock { $0.isSubscribing = false }
    }

    /// A value from the flow.
    @inlinable
    func receive(_ value: Element) -> FlowDemand {
        while true {
            switch state.withLock({ $0.receive(value) }) {
            case .none:
                return .more
            case .resume(let waiter, let value):
                waiter.resume(returning: .value(value))
                return .more
            case .drop(let dropped):
                onDrop?(dropped)
                return .more
            case .stop:
                return .stop
            case .hold(let semaphore):
                semaphore.wait()  // until the consumer takes a value or leaves; then again
            }
        }
    }

    /// The flow completed.
    @inlinable
    func complete(_ completion: FlowCompletion<Failure>) {
        state.withLock { $0.complete(completion) }?.resume(returning: FlowEvent(completion))
    }

    @inlinable
    func withMachine<Result>(of id: UInt64, _ body: (inout Machine) -> Result) -> Result {
        state.withLock(body)
    }

    @usableFromInline
    func cancel(_ id: UInt64) {
        let departure = state.withLock { $0.cancel() }
        if perform(departure) { subscription.cancel() }
    }
}
