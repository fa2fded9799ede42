/// The lock and the actions behind a ``BroadcastChannel``: decides with
/// ``BroadcastChannelStateMachine`` under the lock, then resumes consumers and calls `onDrop`
/// after unlocking. Consumers pull through ``ConsumerCursor``, like `flow.values`.
@usableFromInline
final class BroadcastChannelStorage<Element: Sendable, Failure: Error>: ConsumerBufferHost {
    @usableFromInline typealias Machine = BroadcastChannelStateMachine<Element, Failure>

    @usableFromInline let state: Lock<Machine>
    @usableFromInline let onDrop: (@Sendable (Element) -> Void)?

    @usableFromInline
    init(limit: BufferLimit, onDrop: (@Sendable (Element) -> Void)?) {
        state = .make(Machine(limit: limit))
        self.onDrop = onDrop
    }

    @inlinable
    func send(_ value: Element) {
        let deliveries = state.withLock { $0.send(value) }
        guard let first = deliveries.first else { return }
        perform(first)
        for delivery in deliveries.more { perform(delivery) }
    }

    @inlinable
    func perform(_ delivery: Machine.Delivery) {
        switch delivery {
        case .resume(let waiter, let value): waiter.resume(returning: .value(value))
        case .drop(let dropped): onDrop?(dropped)
        }
    }

    @usableFromInline
    func complete(_ completion: FlowCompletion<Failure>) {
        let waiters = state.withLock { $0.complete(completion) }
        for waiter in waiters { waiter.resume(returning: FlowEvent(completion)) }
    }

    /// A consumer starts; returns its id, after resuming the tasks that waited for it.
    @usableFromInline
    func register() -> UInt64 {
        let (id, satisfied) = state.withLock { machine in
            let id = machine.register()
            return (id, machine.takeSatisfiedConsumerWaiters())
        }
        for waiter in satisfied { waiter.continuation.resume() }
        return id
    }

    /// Returns once `count` consumers iterate, or when the calling task is cancelled.
    @usableFromInline
    func waitForConsumers(_ count: Int) async {
        let id = state.withLock { machine -> UInt64 in
            machine.nextID += 1
            return machine.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { machine in
                    Task.isCancelled || machine.waitForConsumers(count, id: id, continuation)
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.removeConsumerWaiter(id) }?.continuation.resume()
        }
    }

    @inlinable
    func withMachine<Result>(
        of id: UInt64,
        _ body: (inout ConsumerBufferStateMachine<Element, Failure>) -> Result
    ) -> Result {
        state.withLock { $0.withConsumer(id, body) }
    }

    @usableFromInline
    func cancel(_ id: UInt64) {
        let departure = state.withLock { $0.remove(id) }
        _ = perform(departure)
    }
}
