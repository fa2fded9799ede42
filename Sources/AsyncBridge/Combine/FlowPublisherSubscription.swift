#if canImport(Combine)
import Combine
#elseif ASYNCBRIDGE_OPENCOMBINE
import OpenCombine
@_spi(AsyncBridgeInternals) import AsyncBridge
#endif

#if canImport(Combine) || ASYNCBRIDGE_OPENCOMBINE
/// The publisher that ``Flow/publisher(bufferingPolicy:onDrop:)`` erases: each Combine
/// subscriber gets a ``FlowPublisherSubscription``, and so its own run of a cold flow.
///
/// `run` subscribes a subscription to the flow. It is made here, inlined into the caller's
/// `publisher` call where the flow's types are concrete, so that subscribing looks up no
/// generic metadata for the sink and its handlers, though Combine calls the adapter and the
/// subscription unspecialised.
@usableFromInline
struct FlowPublisherAdapter<Output: Sendable, Failure: Error>: Publisher {
    @usableFromInline let run: @Sendable (FlowPublisherSubscription<Output, Failure>) -> Void
    @usableFromInline let policy: FlowPublisherBufferingPolicy<Failure>
    @usableFromInline let onDrop: (@Sendable (Output) -> Void)?

    @inlinable
    init(flow: Flow<Output, Failure>, policy: FlowPublisherBufferingPolicy<Failure>, onDrop: (@Sendable (Output) -> Void)?) {
        run = { subscription in
            _ = flow.subscribe(
                onStart: { subscription.started($0) },
                onValue: { subscription.receive($0) },
                onCompletion: { subscription.complete($0) }
            )
        }
        self.policy = policy
        self.onDrop = onDrop
    }

    @usableFromInline
    func receive<Downstream: Subscriber>(subscriber: Downstream)
    where Downstream.Input == Output, Downstream.Failure == Failure {
        let subscription = FlowPublisherSubscription(
            run: run, policy: policy, onDrop: onDrop, downstream: FlowPublisherSubscriber(subscriber))
        subscriber.receive(subscription: subscription)
    }
}

/// One Combine subscriber's subscription to a flow: decides under its lock
/// (``FlowPublisherStateMachine``), then, after unlocking, subscribes to the flow, delivers,
/// cancels the flow or calls `onDrop`.
///
/// Lifetime: while subscribed, the flow's handlers hold this object (as a Combine upstream holds
/// its subscription) until the flow completes or is cancelled; the Combine subscriber holds it
/// until it has had its completion or has cancelled.
///
/// Combine calls this class unspecialised (through protocols and `AnyPublisher`'s box), where a
/// generic type whose layout depends on its parameters costs a metadata lookup per use. So the
/// subscriber sits behind a class (``FlowPublisherDownstream``, which also keeps its non-`Sendable`
/// metatype out of the flow's closures), the machine's layout depends on no parameter, and its
/// methods are inlined between `lock()` and `unlock()` of a ``SharedMutex`` (``SharedLock``'s
/// `withLock` is generic and takes a closure).
///
/// Unchecked: `machine` is only read or written while `mutex` is held; `run` and `onDrop` are
/// `Sendable` constants. The subscriber need not be `Sendable`: Combine lets it be called from any
/// thread, one call at a time, and the machine has one thread deliver at a time.
@usableFromInline
final class FlowPublisherSubscription<Element: Sendable, Failure: Error>: Subscription,
    CustomStringConvertible, @unchecked Sendable
{
    typealias Downstream = FlowPublisherDownstream<Element, Failure>
    typealias Machine = FlowPublisherStateMachine<Element, Failure, Downstream>

    private let mutex = SharedMutex()
    /// Unchecked exclusivity: every access holds `mutex`; the dynamic check would repeat that.
    @exclusivity(unchecked) private var machine: Machine
    private let run: @Sendable (FlowPublisherSubscription) -> Void
    private let onDrop: (@Sendable (Element) -> Void)?

    init(
        run: @escaping @Sendable (FlowPublisherSubscription) -> Void,
        policy: FlowPublisherBufferingPolicy<Failure>,
        onDrop: (@Sendable (Element) -> Void)?,
        downstream: Downstream
    ) {
        policy.validate()
        self.run = run
        self.onDrop = onDrop
        machine = Machine(downstream: downstream, policy: policy)
    }

    deinit {
        mutex.deallocate()
    }

    @usableFromInline
    var description: String { "Flow.publisher" }

    // MARK: Subscription

    /// Adds demand. Zero demand breaks Combine's rules: it traps, in every build and whatever
    /// the state (even after `cancel()`), as Combine's own subscriptions do.
    @usableFromInline
    func request(_ demand: Subscribers.Demand) {
        if demand == .none { fatalError("API Violation: demand must not be zero") }
        mutex.lock()
        let action = machine.request(demand)
        mutex.unlock()
        switch action {
        case .none:
            break
        case .subscribe:
            subscribe()
        case .drain:
            drain(adding: .none)
        }
    }

    @usableFromInline
    func cancel() {
        mutex.lock()
        let cancellation = machine.cancel()
        mutex.unlock()
        guard let cancellation else { return }
        // The subscriber and buffered values, moved out, are released with it after unlocking.
        cancellation.token?.cancel()
    }

    // MARK: Flow

    /// Subscribes to the flow, on the thread of the first `request`; the flow may deliver, and
    /// even complete, before this returns. The token, handed over before the flow runs, is its
    /// gate: once `cancel()` or an overflow cancels it, nothing more is delivered and a
    /// synchronous source stops its loop, even when cancelled from inside `receive(_:)`.
    private func subscribe() {
        run(self)
    }

    @usableFromInline
    func started(_ token: CancellationToken) {
        mutex.lock()
        let cancelNow = machine.started(token)
        mutex.unlock()
        cancelNow?.cancel()
    }

    @usableFromInline
    func receive(_ value: Element) {
        mutex.lock()
        if let downstream = machine.unlimitedDelivery() {
            mutex.unlock()
            _ = downstream.receive(value)  // the demand stays unlimited
            return
        }
        receiveHoldingLock(value)
    }

    /// Entered with the mutex held; out of line so the fast path pays no metadata for its action.
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

    @usableFromInline
    func complete(_ completion: FlowCompletion<Failure>) {
        mutex.lock()
        let action = machine.complete(completion)
        mutex.unlock()
        if action.drain { drain(adding: .none) }
        withExtendedLifetime(action.token) {}  // released after unlocking
    }

    /// Delivers until there is nothing to deliver (no demand, an empty buffer) or the
    /// subscriber has gone. Only the thread the machine chose runs this.
    private func drain(adding more: Subscribers.Demand) {
        var more = more
        while true {
            mutex.lock()
            let delivery = machine.nextDelivery(adding: more)
            mutex.unlock()
            switch delivery {
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

/// The Combine subscriber of a ``FlowPublisherSubscription`` behind a class (the concrete one is
/// ``FlowPublisherSubscriber``), so the machine holding it has a fixed layout.
class FlowPublisherDownstream<Input, Failure: Error> {
    func receive(_ value: Input) -> Subscribers.Demand {
        preconditionFailure("Internal inconsistency: FlowPublisherDownstream is abstract")
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        preconditionFailure("Internal inconsistency: FlowPublisherDownstream is abstract")
    }
}

/// A Combine subscriber behind a ``FlowPublisherDownstream``.
final class FlowPublisherSubscriber<Base: Subscriber>: FlowPublisherDownstream<Base.Input, Base.Failure> {
    private let base: Base

    init(_ base: Base) {
        self.base = base
    }

    override func receive(_ value: Base.Input) -> Subscribers.Demand {
        base.receive(value)
    }

    override func receive(completion: Subscribers.Completion<Base.Failure>) {
        base.receive(completion: completion)
    }
}
#endif
