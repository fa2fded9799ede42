/// The gate of a flow subscription, kept by its token: the one place that keeps "nothing after
/// cancellation" (contract 3) and, in debug builds, checks "one delivery at a time".
///
/// The gate is a word read without a lock before every event; ``cancel()`` closes it before it
/// cancels upstream, so a delivery that starts after any `cancel()` has returned finds it
/// closed, however the operators upstream are written. Only an event already past the gate on
/// another thread may still arrive. The token holds the subscription, not the handlers: the
/// chain's subscriber closures hold those.
extension CancellationToken {
    @inlinable static var cancelledBit: UInt { 1 }
    @inlinable static var endedBit: UInt { 2 }

    /// Whether events may still be delivered.
    @inlinable
    var isOpen: Bool { state.load() == 0 }

    /// Closes the gate for a completion; whether the completion may be delivered (nothing ended
    /// the subscription before, and nobody cancelled).
    @inlinable
    func closeForCompletion() -> Bool {
        state.setBits(Self.endedBit) == 0
    }

    /// Closes the gate and cancels upstream without counting as ``cancel()`` (the owner of a
    /// `subscribe(with:)` is gone).
    @inlinable
    func end() {
        if state.setBits(Self.endedBit) != 0 { return }
        runTarget()
    }

    /// Marks the start of a delivery; in debug builds, traps if another thread is delivering
    /// to this subscriber at this moment. Returns whether this delivery is the outermost on its
    /// thread (a re-entrant one finds its own thread there already), for ``leaveDelivery(_:)``.
    @inlinable
    func enterDelivery(of flow: @autoclosure () -> Any.Type) -> Bool {
        #if DEBUG
        let current = ThreadIdentity.currentWord
        let holder = deliverer.compareExchange(expected: 0, desired: current)
        if holder != 0 && holder != current { concurrentDeliveryDetected(subscriber: method, flow: flow()) }
        return holder == 0
        #else
        return false
        #endif
    }

    /// Marks the end of a delivery: the outermost one frees the subscriber for another thread.
    @inlinable
    func leaveDelivery(_ outermost: Bool) {
        #if DEBUG
        if outermost { deliverer.store(0) }
        #endif
    }
}

#if DEBUG
@usableFromInline
func concurrentDeliveryDetected(subscriber: StaticString, flow: Any.Type) -> Never {
    preconditionFailure(
        "AsyncBridge: two threads delivered events at once to a subscriber of \(flow) made by \(subscriber). "
            + "A subscriber gets one event at a time: a source or operator that can emit from several threads must serialise its events (Flow.create's emitter and the subjects do)."
    )
}
#endif

/// What a ``FlowSink`` calls: the user's handlers, in one of the forms `subscribe` offers.
@usableFromInline
protocol FlowSinkHandlers: Sendable {
    associatedtype Element: Sendable
    associatedtype Failure: Error
    /// Handles a value; `false` when the subscription must end (its owner is gone).
    func receive(_ value: Element) -> Bool
    func complete(_ completion: FlowCompletion<Failure>)
}

/// Where every subscription the user holds ends: the user's handlers behind the token's gate.
///
/// ```swift
/// let sink = FlowSink(FlowHandlers(onValue: { print($0) }, onCompletion: { _ in }), method: "subscribe(onValue:onCompletion:)")
/// flow.run(sink.subscriber)
/// return sink.token
/// ```
@usableFromInline
final class FlowSink<Handlers: FlowSinkHandlers>: Sendable {
    @usableFromInline let handlers: Handlers
    @usableFromInline let token: CancellationToken
    @usableFromInline let subscription: FlowSubscription

    /// Always inlined: the caller's specialisation then sees which closures `handlers` holds,
    /// and calls them directly on every value instead of through reabstraction thunks.
    @inlinable @inline(__always)
    init(_ handlers: Handlers, method: StaticString) {
        self.handlers = handlers
        subscription = FlowSubscription()
        token = CancellationToken(subscription: subscription, method: method)
    }

    /// A sink behind a token made beforehand (by a consumer that keeps the token, not the sink).
    @inlinable
    init(_ handlers: Handlers, token: CancellationToken, subscription: FlowSubscription) {
        self.handlers = handlers
        self.subscription = subscription
        self.token = token
    }

    /// The subscriber to run the flow with: each closure's context is the sink itself.
    @inlinable
    var subscriber: FlowSubscriber<Handlers.Element, Handlers.Failure> {
        FlowSubscriber(
            subscription: subscription,
            receive: { self.receive($0) },
            completeMarkingSubscription: { self.complete($0) }
        )
    }

    @inlinable
    func receive(_ value: Handlers.Element) -> FlowDemand {
        guard token.isOpen else { return .stop }
        let outermost = token.enterDelivery(of: Flow<Handlers.Element, Handlers.Failure>.self)
        let keep = handlers.receive(value)
        token.leaveDelivery(outermost)
        // A handler that cancelled its own token: synchronous sources see their subscription's
        // flag before the next value; the gate answers stop to the others.
        if keep { return .more }
        token.end()
        return .stop
    }

    /// Marks the subscription completed first, so its cancel actions are released without
    /// running (see ``FlowSubscriber``).
    @inlinable
    func complete(_ completion: FlowCompletion<Handlers.Failure>) {
        subscription.complete()
        guard token.closeForCompletion() else { return }
        let outermost = token.enterDelivery(of: Flow<Handlers.Element, Handlers.Failure>.self)
        handlers.complete(completion)
        token.leaveDelivery(outermost)
    }
}

/// A value handler and a completion handler: `subscribe(onValue:onCompletion:)`.
@usableFromInline
struct FlowHandlers<Element: Sendable, Failure: Error>: FlowSinkHandlers {
    @usableFromInline let onValue: @Sendable (Element) -> Void
    @usableFromInline let onCompletion: @Sendable (FlowCompletion<Failure>) -> Void

    @inlinable
    init(onValue: @escaping @Sendable (Element) -> Void, onCompletion: @escaping @Sendable (FlowCompletion<Failure>) -> Void) {
        self.onValue = onValue
        self.onCompletion = onCompletion
    }

    @inlinable
    func receive(_ value: Element) -> Bool {
        onValue(value)
        return true
    }

    @inlinable
    func complete(_ completion: FlowCompletion<Failure>) {
        onCompletion(completion)
    }
}

/// Handlers of an owner held weakly: `subscribe(with:onValue:onCompletion:)`. The
/// subscription ends at the first value after the owner is gone.
@usableFromInline
struct FlowOwnerHandlers<Owner: AnyObject & Sendable, Element: Sendable, Failure: Error>: FlowSinkHandlers {
    @usableFromInline weak var owner: Owner?
    @usableFromInline let onValue: @Sendable (Owner, Element) -> Void
    @usableFromInline let onCompletion: @Sendable (Owner, FlowCompletion<Failure>) -> Void

    @inlinable
    init(
        owner: Owner,
        onValue: @escaping @Sendable (Owner, Element) -> Void,
        onCompletion: @escaping @Sendable (Owner, FlowCompletion<Failure>) -> Void
    ) {
        self.owner = owner
        self.onValue = onValue
        self.onCompletion = onCompletion
    }

    @inlinable
    func receive(_ value: Element) -> Bool {
        guard let owner else { return false }
        onValue(owner, value)
        return true
    }

    @inlinable
    func complete(_ completion: FlowCompletion<Failure>) {
        if let owner { onCompletion(owner, completion) }
    }
}
