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
            flow: flow, policy: policy, onDrop: onDrop, downstream: FlowPublisherSubscriber(subscriber))
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
/// The subscriber is held behind a ``FlowPublisherDownstream``, so that the `Sendable` closures
/// given to the flow capture no metatype of the subscriber's own type (which is not
/// `Sendable`).
///
/// Combine reaches this class through protocols and `AnyPublisher`'s box, so its code runs
/// unspecialised, where every use of a generic type whose layout depends on the generic
/// parameters looks up its metadata. So the subscriber is a class (not an `AnySubscriber`), the
/// machine's layout depends on no parameter, and the machine's methods are inlined
/// here, between `lock()` and `unlock()` of the object's own ``SharedMutex`` (not a
/// ``SharedLock``, whose `withLock` is generic over the state and takes a closure): a
/// subscription, its values and its cancellation look up no metadata of their own.
///
/// Unchecked: `machine` is only read or written while `mutex` is held; `flow` and `onDrop` are
/// `Sendable` constants. The subscriber itself need not be `Sendable`: Combine lets a subscriber be
/// called from any thread, one call at a time, and the machine has one thread deliver at a
/// time.
final class FlowPublisherSubscription<Element: Sendable, Failure: Error>: Subscription,
    CustomStringConvertible, @unchecked Sendable
{
    typealias Downstream = FlowPublisherDownstream<Element, Failure>
    typealias Machine = FlowPublisherStateMachine<Element, Failure, Downstream>

    private let mutex = SharedMutex()
    /// Unchecked exclusivity: every access is made holding `mutex`, which is what makes it
    /// exclusive; the dynamic check would only repeat that on every event.
    @exclusivity(unchecked) private var machine: Machine
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

    var description: String { "Flow.publisher" }

    // MARK: Subscription

    /// Adds demand. Zero demand breaks Combine's rules: it traps, in every build and whatever
    /// the state (even after `cancel()`), as Combine's own subscriptions do.
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

    func cancel() {
        mutex.lock()
        let cancellation = machine.cancel()
        mutex.unlock()
        guard let cancellation else { return }
        // The subscriber and the buffered values, moved out of the machine, are released
        // with `cancellation`, after unlocking.
        cancellation.token?.cancel()
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
            onStart: { [self] token in started(token) },
            onValue: { [self] value in receive(value) },
            onCompletion: { [self] completion in complete(completion) }
        )
    }

    private func started(_ token: CancellationToken) {
        mutex.lock()
        let cancelNow = machine.started(token)
        mutex.unlock()
        cancelNow?.cancel()
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

/// The Combine subscriber of a ``FlowPublisherSubscription``, as a class whatever its type:
/// ``FlowPublisherSubscriber`` holds it. A reference, so that the machine holding it has a
/// layout of its own whatever the subscriber is.
///
/// ```swift
/// let downstream: FlowPublisherDownstream<Int, Never> = FlowPublisherSubscriber(sink)
/// _ = downstream.receive(1)
/// ```
class FlowPublisherDownstream<Input, Failure: Error> {
    func receive(_ value: Input) -> Subscribers.Demand {
        preconditionFailure("Internal inconsistency: FlowPublisherDownstream is abstract")
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        preconditionFailure("Internal inconsistency: FlowPublisherDownstream is abstract")
    }
}

/// A Combine subscriber behind a ``FlowPublisherDownstream``.
///
/// ```swift
/// let downstream = FlowPublisherSubscriber(Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in }))
/// ```
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
