#if canImport(Combine)
import Combine
#elseif ASYNCBRIDGE_OPENCOMBINE
import OpenCombine
import AsyncBridge
#endif

#if canImport(Combine) || ASYNCBRIDGE_OPENCOMBINE
/// The publisher that ``Flow/publisher(bufferingPolicy:onDrop:)`` erases: each Combine
/// subscriber gets a ``FlowPublisherSubscription`` of its own (and so, once it demands, a
/// subscription of its own to the flow: a cold flow runs once per subscriber).
///
/// ```swift
/// let publisher = FlowPublisherAdapter(flow: flow, policy: .unbounded, onDrop: nil).eraseToAnyPublisher()
/// ```
struct FlowPublisherAdapter<Output: Sendable, Failure: Error>: Publisher {
    let flow: Flow<Output, Failure>
    let policy: FlowPublisherBufferingPolicy<Failure>
    let onDrop: (@Sendable (Output) -> Void)?

    func receive<Downstream: Subscriber>(subscriber: Downstream)
    where Downstream.Input == Output, Downstream.Failure == Failure {
        let subscription = FlowPublisherSubscription(
            flow: flow, policy: policy, onDrop: onDrop, downstream: AnySubscriber(subscriber))
        subscriber.receive(subscription: subscription)
    }
}

/// One Combine subscriber's subscription to a flow: decides under its lock
/// (``FlowPublisherStateMachine``), then, after unlocking, subscribes to the flow, delivers to
/// the subscriber, cancels the flow or passes dropped values to `onDrop`.
///
/// While the flow is subscribed, the flow's subscriber (the closure passed to `subscribe`)
/// holds this object, as a Combine upstream holds its subscription; the flow lets it go when
/// it completes or is cancelled, and the Combine subscriber lets it go when it has had its
/// completion or has cancelled.
///
/// ```swift
/// let subscription = FlowPublisherSubscription(flow: flow, policy: .unbounded, onDrop: nil, downstream: sink)
/// sink.receive(subscription: subscription)
/// ```
///
/// The subscriber is held as an `AnySubscriber`, so that the `Sendable` closure given to the
/// flow captures no metatype of the subscriber's own type (which is not `Sendable`).
///
/// Unchecked: the mutable state is inside `state`'s lock; `flow` and `onDrop` are `Sendable`
/// constants. The subscriber itself need not be `Sendable`: Combine lets a subscriber be
/// called from any thread, one call at a time, and the machine has one thread deliver at a
/// time.
final class FlowPublisherSubscription<Element: Sendable, Failure: Error>: Subscription,
    CustomStringConvertible, @unchecked Sendable
{
    typealias Downstream = AnySubscriber<Element, Failure>
    typealias Machine = FlowPublisherStateMachine<Element, Failure, Downstream>

    private let state: CombineBridgeLock<Machine>
    private let flow: Flow<Element, Failure>
    private let onDrop: (@Sendable (Element) -> Void)?

    init(
        flow: Flow<Element, Failure>,
        policy: FlowPublisherBufferingPolicy<Failure>,
        onDrop: (@Sendable (Element) -> Void)?,
        downstream: Downstream
    ) {
        policy.validate()
        self.flow = flow
        self.onDrop = onDrop
        state = CombineBridgeLock(Machine(downstream: downstream, policy: policy))
    }

    var description: String { "Flow.publisher" }

    // MARK: Subscription

    func request(_ demand: Subscribers.Demand) {
        switch state.withLock({ $0.request(demand) }) {
        case .none:
            break
        case .subscribe:
            subscribe()
        case .drain:
            drain(adding: .none)
        }
    }

    func cancel() {
        guard let cancellation = state.withLock({ $0.cancel() }) else { return }
        cancellation.token?.cancel()
        // The subscriber and the buffered values are released here, after unlocking.
        withExtendedLifetime(cancellation) {}
    }

    // MARK: Flow

    /// Subscribes to the flow, on the thread of the first `request`. The flow may deliver,
    /// and even complete, before `subscribe` returns.
    private func subscribe() {
        let token = flow.subscribe { [self] event in
            switch event {
            case .value(let value): receive(value)
            case .finished: complete(.finished)
            case .failure(let error): complete(.failure(error))
            }
        }
        state.withLock { $0.subscribed(token) }?.cancel()
    }

    private func receive(_ value: Element) {
        switch state.withLock({ $0.receive(value) }) {
        case .none:
            break
        case .deliver(let downstream, let value):
            let more = downstream.receive(value)
            drain(adding: more)
        case .drop(let dropped):
            onDrop?(dropped)
        case .overflow(let token, let drain):
            token?.cancel()
            if drain { self.drain(adding: .none) }
        }
    }

    private func complete(_ completion: FlowCompletion<Failure>) {
        let action = state.withLock { $0.complete(completion) }
        if action.drain { drain(adding: .none) }
        withExtendedLifetime(action.token) {}  // released after unlocking
    }

    /// Delivers until there is nothing to deliver (no demand, an empty buffer) or the
    /// subscriber has gone. Only the thread the machine chose runs this.
    private func drain(adding more: Subscribers.Demand) {
        var more = more
        while true {
            switch state.withLock({ $0.nextDelivery(adding: more) }) {
            case .value(let downstream, let value):
                more = downstream.receive(value)
            case .completion(let downstream, .finished):
                downstream.receive(completion: .finished)
                return
            case .completion(let downstream, .failure(let error)):
                downstream.receive(completion: .failure(error))
                return
            case .stop:
                return
            }
        }
    }
}
#endif
