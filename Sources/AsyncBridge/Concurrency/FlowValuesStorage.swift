import Dispatch

/// One iteration of `flow.values`: one subscription feeding one ``ConsumerBufferStateMachine``
/// that the iterator pulls from. `receive` decides under the lock and acts after unlocking; a
/// held producer waits on its semaphore outside the lock.
@usableFromInline
final class FlowValuesStorage<Element: Sendable, Failure: Error>: ConsumerBufferHost {
    @usableFromInline typealias Machine = ConsumerBufferStateMachine<Element, Failure>

    @usableFromInline let state: Lock<Machine>
    @usableFromInline let subscription = FlowSubscription()
    /// The gate the subscription's sink reads; cancelled when the last consumer leaves.
    @usableFromInline let token: CancellationToken
    @usableFromInline let onDrop: (@Sendable (Element) -> Void)?

    @inlinable
    init(limit: BufferLimit, onDrop: (@Sendable (Element) -> Void)?) {
        state = .make(Machine(limit: limit))
        self.onDrop = onDrop
        token = CancellationToken(subscription: subscription, method: "values")
    }

    /// Subscribes to `flow` (no producer is held until it returns: see
    /// ``ConsumerBufferStateMachine/isSubscribing``). Inlinable so the per-value path is
    /// specialised for the caller's types.
    @inlinable
    func start(_ flow: Flow<Element, Failure>) {
        state.withLock { $0.isSubscribing = true }
        flow.run(FlowSink(FlowValuesHandlers(storage: self), token: token, subscription: subscription).subscriber)
        state.withLock { $0.isSubscribing = false }
    }

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
        if perform(departure) { token.cancel() }
    }
}

/// What the sink of a `values` subscription calls: the storage's buffer.
@usableFromInline
struct FlowValuesHandlers<Element: Sendable, Failure: Error>: FlowSinkHandlers {
    @usableFromInline let storage: FlowValuesStorage<Element, Failure>

    @inlinable
    init(storage: FlowValuesStorage<Element, Failure>) {
        self.storage = storage
    }

    @inlinable
    func receive(_ value: Element) -> Bool {
        storage.receive(value) == .more
    }

    @inlinable
    func complete(_ completion: FlowCompletion<Failure>) {
        storage.complete(completion)
    }
}
