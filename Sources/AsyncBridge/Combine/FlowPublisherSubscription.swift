#if canImport(Combine)
import Combine
#elseif ASYNCBRIDGE_OPENCOMBINE
import OpenCombine
@_spi(AsyncBridgeInternals) import AsyncBridge
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
/// While the flow is subscribed, the flow's subscriber (the handler passed to `subscribe`)
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
/// The lock is the object's own ``SharedMutex`` next to the machine, not a ``SharedLock``: Combine
/// reaches this class through protocols and `AnyPublisher`'s box, so its code runs
/// unspecialised, where a generic `withLock` looks up the metadata of its state and result
/// types on every call. The per-value path with unlimited demand
/// (``FlowPublisherStateMachine/unlimitedDelivery()``) therefore locks once and needs no
/// metadata; the other paths go through ``withLock(_:)``.
///
/// Unchecked: `machine` is only read or written while `mutex` is held; `flow` and `onDrop` are
/// `Sendable` constants. The subscriber itself need not be `Sendable`: Combine lets a subscriber be
/// called from any thread, one call at a time, and the machine has one thread deliver at a
/// time.
final class FlowPublisherSubscription<Element: Sendable, Failure: Error>: Subscription,
    CustomStringConvertible, @unchecked Sendable
{
    typealias Downstream = AnySubscriber<Element, Failure>
    typealias Machine = FlowPublisherStateMachine<Element, Failure, Downstream>

    private let mutex = SharedMutex()
    private var machine: Machine
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
        machine = Machine(downstream: downstream, policy: policy)
    }

    deinit {
        mutex.deallocate()
    }

    /// Runs `body` on the machine with the mutex held.
    private func withLock<Result>(_ body: (inout Machine) -> Result) -> Result {
        mutex.lock()
        defer { mutex.unlock() }
        return body(&machine)
    }

    var description: String { "Flow.publisher" }

    // MARK: Subscription

    /// Adds demand. Zero demand breaks Combine's rules: it traps, in every build and whatever
    /// the state (even after `cancel()`), as Combine's own subscriptions do.
    func request(_ demand: Subscribers.Demand) {
        if demand == .none { fatalError("API Violation: demand must not be zero") }
        switch withLock({ $0.request(demand) }) {
        case .none:
            break
        case .subscribe:
            subscribe()
        case .drain:
            drain(adding: .none)
        }
    }

    func cancel() {
        guard let cancellation = withLock({ $0.cancel() }) else { return }
        cancellation.token?.cancel()
        // The subscriber and the buffered values are released here, after unlocking.
        withExtendedLifetime(cancellation) {}
    }

    // MARK: Flow

    /// Subscribes to the flow, on the thread of the first `request`. The flow may deliver,
    /// and even complete, before `subscribe` returns.
    ///
    /// The token is the flow's gate, handed over before the flow runs: once the subscriber's
    /// `cancel()` (or an overflow) has cancelled it, nothing more is delivered and a
    /// synchronous source (`Flow.sequence`) stops its loop, even when the cancel comes from
    /// inside `receive(_:)` in the middle of that loop.
    private func subscribe() {
        _ = flow.subscribe(
            onStart: { [self] token in withLock { $0.started(token) }?.cancel() },
            onValue: { [self] value in receive(value) },
            onCompletion: { [self] completion in complete(completion) }
        )
    }

    private func receive(_ value: Element) {
        mutex.lock()
        if let downstream = machine.unlimitedDelivery() {
            mutex.unlock()
            _ = downstream.receive(value)  // the demand stays unlimited
            return
        }
        receiveHoldingLock(value)
    }

    /// The rest of ``receive(_:)``, entered with the mutex held: apart, so that the fast path
    /// does not pay for the metadata of this path's action type.
    @inline(never)
    private func receiveHoldingLock(_ value: Element) {
        let action = machine.receive(value)
        mutex.unlock()
        switch action {
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
        let action = withLock { $0.complete(completion) }
        if action.drain { drain(adding: .none) }
        withExtendedLifetime(action.token) {}  // released after unlocking
    }

    /// Delivers until there is nothing to deliver (no demand, an empty buffer) or the
    /// subscriber has gone. Only the thread the machine chose runs this.
    private func drain(adding more: Subscribers.Demand) {
        var more = more
        while true {
            switch withLock({ $0.nextDelivery(adding: more) }) {
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
