#if canImport(Combine)
import Combine
#elseif ASYNCBRIDGE_OPENCOMBINE
import OpenCombine
@_spi(AsyncBridgeInternals) import AsyncBridge
#endif

#if canImport(Combine) || ASYNCBRIDGE_OPENCOMBINE
/// The decisions of one Combine subscription to a flow (``Flow/publisher(bufferingPolicy:onDrop:)``):
/// demand, the buffer of values the subscriber has not asked for yet, the flow's subscription,
/// and who delivers.
///
/// No lock and no side effect: ``FlowPublisherSubscription`` calls it under its lock and carries
/// out the returned action after unlocking.
///
/// ```
///          request(n) (first)             the token, before the flow runs
///  .idle ──────────────────▶ .subscribing ──────────────────────────▶ .subscribed(token)
///    │ cancel()                   │ cancel(): the token is cancelled         │ flow completes /
///    │                            │ on arrival (the flow never runs)         │ overflow / cancel()
///    └────────────────────────────┴──────────────▶ .done ◀──────────────────┘
/// ```
///
/// Independently, `downstream` is the subscriber until its completion or cancel (then `nil`:
/// everything is ignored), and `delivering` marks the one thread handing it values: deliveries
/// never overlap, and a `request` from inside its `receive` only adds demand.
///
/// The buffer holds, oldest first, the values the outstanding `demand` covers, then those
/// beyond it; the policy's limit counts only the latter, so a requested value is never dropped
/// nor causes an overflow.
struct FlowPublisherStateMachine<Element, Failure: Error, Downstream> {
    /// The flow's subscription.
    typealias Upstream = FlowPublisherUpstream

    // The code that runs is unspecialised: with `Downstream` a class and the completion and the
    // policy's error boxed, no stored property's layout depends on `Element` or `Failure`, so
    // the inlined methods use fixed offsets and look up no generic metadata.

    private(set) var upstream = Upstream.idle
    /// The subscriber, until it has had its completion or has cancelled.
    private var downstream: Downstream?
    /// What the subscriber has asked for and not been given.
    private var demand = Subscribers.Demand.none
    /// Whether a thread is delivering (it looks at the buffer again before it stops).
    private var delivering = false
    /// Values received without demand, oldest first.
    private var buffer = SharedQueue<Element>()
    /// How the flow ended, to be delivered once the buffer is empty.
    private var completion = FlowPublisherPendingCompletion<Failure>.none
    private let policy: FlowPublisherBufferingPolicy<Failure>

    @inline(__always)
    init(downstream: Downstream, policy: FlowPublisherBufferingPolicy<Failure>) {
        self.downstream = downstream
        self.policy = policy
    }

    // MARK: Subscriber side

    /// What to do after a `request`.
    typealias RequestAction = FlowPublisherRequestAction

    /// `more` is not zero (the subscription traps on zero, as Combine's do).
    @inline(__always)
    mutating func request(_ more: Subscribers.Demand) -> RequestAction {
        guard downstream != nil else { return .none }
        demand += more
        if case .idle = upstream {
            upstream = .subscribing(cancelWhenSubscribed: false)
            return .subscribe  // the buffer is empty and nothing has completed: nothing to drain
        }
        return startDelivering() ? .drain : .none
    }

    /// What `cancel()` hands over, to be cancelled and released after unlocking.
    struct Cancellation {
        var token: CancellationToken?
        var downstream: Downstream?
        var buffer: SharedQueue<Element>
        var completion: FlowPublisherPendingCompletion<Failure>

        @inline(__always)
        init(
            token: CancellationToken?, downstream: Downstream?, buffer: SharedQueue<Element>,
            completion: FlowPublisherPendingCompletion<Failure>
        ) {
            self.token = token
            self.downstream = downstream
            self.buffer = buffer
            self.completion = completion
        }
    }

    /// The subscriber cancelled: forget it and everything buffered for it; cancel the flow.
    @inline(__always)
    mutating func cancel() -> Cancellation? {
        // Not `Optional.take()`: unspecialised, it needs the metadata of `Downstream?`.
        guard let downstream else { return nil }
        self.downstream = nil
        return Cancellation(
            token: endUpstream(), downstream: downstream, buffer: takeBuffer(), completion: completion.take())
    }

    // MARK: Flow side

    /// `flow.subscribe` hands over `token` before the flow runs: what to cancel now (the
    /// subscriber cancelled meanwhile: the flow then never runs), or `nil`.
    @inline(__always)
    mutating func started(_ token: CancellationToken) -> CancellationToken? {
        switch upstream {
        case .subscribing(cancelWhenSubscribed: false):
            upstream = .subscribed(token)
            return nil
        case .subscribing(cancelWhenSubscribed: true):
            upstream = .done
            return token
        case .idle, .subscribed, .done:
            preconditionFailure("Internal inconsistency: a flow started twice, or unasked, for one Combine subscription")
        }
    }

    /// What to do with a value from the flow, after unlocking.
    enum ReceiveAction {
        /// Buffered, or ignored (the subscriber is gone, or the flow's end is decided).
        case none
        /// This thread delivers, then calls ``nextDelivery(adding:)`` until `.stop`.
        case deliver(Downstream, Element)
        /// Pass to `onDrop` (the new value, or the oldest one not requested).
        case drop(Element)
        /// Full under `.failingWhenFull`: cancel `token` if known; if `drain`, deliver (the
        /// failure is queued after the buffered values).
        case overflow(token: CancellationToken?, drain: Bool)
    }

    @inline(__always)
    mutating func receive(_ value: Element) -> ReceiveAction {
        guard let downstream, completion.isNone else { return .none }
        if !delivering, buffer.isEmpty, demand > .none {
            delivering = true
            demand -= 1
            return .deliver(downstream, value)
        }
        // The first `requested` buffered values are covered by the demand; so is this one if
        // there are fewer. Only the values beyond them count against the policy's limit.
        let requested = demand.max ?? .max
        guard buffer.count >= requested else {
            buffer.append(value)
            return .none
        }
        let unrequested = buffer.count - requested
        switch policy {
        case .unbounded:
            buffer.append(value)
        case .bufferingNewest(let limit):
            guard unrequested >= limit else { buffer.append(value); break }
            guard limit > 0 else { return .drop(value) }
            let evicted = buffer.remove(at: requested)
            buffer.append(value)
            return .drop(evicted)
        case .bufferingOldest(let limit):
            guard unrequested >= limit else { buffer.append(value); break }
            return .drop(value)
        case .failingWhenFull(let limit, let error):
            guard unrequested >= limit else { buffer.append(value); break }
            completion = .some(.failure(error))
            let token = endUpstream()
            return .overflow(token: token, drain: startDelivering())
        }
        return .none
    }

    /// What to do after the flow completed.
    typealias CompleteAction = FlowPublisherCompleteAction

    /// The flow completed: the completion waits for the buffered values.
    @inline(__always)
    mutating func complete(_ flowCompletion: FlowCompletion<Failure>) -> CompleteAction {
        guard downstream != nil, completion.isNone else { return CompleteAction(token: nil, drain: false) }
        completion = .some(flowCompletion)
        var token: CancellationToken?
        if case .subscribed(let subscribed) = upstream { token = subscribed }
        upstream = .done
        return CompleteAction(token: token, drain: startDelivering())
    }

    // MARK: Delivering

    /// The delivering thread's next step.
    enum Delivery {
        /// Deliver a value, then ask again with the demand its `receive` returned.
        case value(Downstream, Element)
        /// Deliver the completion: the subscriber's last event (it is released afterwards).
        case completion(Downstream, FlowCompletion<Failure>)
        /// Nothing to deliver now: this thread stops delivering.
        case stop
    }

    /// Called only by the thread that is delivering (after `.drain`, `.deliver` or `.overflow`
    /// with `drain`), with the demand the last value's `receive` returned (`.none` at first).
    @inline(__always)
    mutating func nextDelivery(adding more: Subscribers.Demand) -> Delivery {
        guard let downstream else {
            delivering = false
            return .stop
        }
        demand += more
        if !buffer.isEmpty {
            guard demand > .none else {
                delivering = false
                return .stop
            }
            demand -= 1
            return .value(downstream, buffer.removeFirst())
        }
        if case .some(let completion) = completion.take() {
            self.downstream = nil
            delivering = false
            return .completion(downstream, completion)
        }
        delivering = false
        return .stop
    }

    // MARK: Helpers

    /// Starts a delivery run on this thread if nobody delivers and there is a value with
    /// demand, or the completion once the buffer is empty (it needs no demand).
    @inline(__always)
    private mutating func startDelivering() -> Bool {
        guard !delivering, downstream != nil else { return false }
        let ready = buffer.isEmpty ? !completion.isNone : demand > .none
        if ready { delivering = true }
        return ready
    }

    /// The buffer, to release after unlocking (not `SharedQueue.takeAll()`, to be inlined).
    @inline(__always)
    private mutating func takeBuffer() -> SharedQueue<Element> {
        let taken = buffer
        buffer = SharedQueue()
        return taken
    }

    /// Ends the flow's side: returns the token to cancel, if it is known; a subscription
    /// still being made is cancelled when its token arrives.
    @inline(__always)
    private mutating func endUpstream() -> CancellationToken? {
        switch upstream {
        case .idle, .done:
            upstream = .done
            return nil
        case .subscribing:
            upstream = .subscribing(cancelWhenSubscribed: true)
            return nil
        case .subscribed(let token):
            upstream = .done
            return token
        }
    }
}

extension FlowPublisherStateMachine {
    /// The per-value fast path: the subscriber to hand a value to when demand is unlimited,
    /// nothing is buffered, nobody delivers and the flow is subscribed; otherwise `nil`, and the
    /// value goes through ``receive(_:)``. `mutating` only to avoid copying the machine.
    ///
    /// It changes nothing, and no second lock is needed after the delivery: unlimited demand
    /// stays unlimited, and no other thread can start delivering meanwhile, since a `request`
    /// starts a run only for a buffered value or a completion, which only the flow adds, one
    /// event at a time (``Flow``'s grammar). And `.subscribed` means `completion` is `.none`:
    /// completing and overflowing end the upstream.
    @inline(__always)
    mutating func unlimitedDelivery() -> Downstream? {
        guard demand == .unlimited, !delivering, buffer.isEmpty else { return nil }
        guard case .subscribed = upstream else { return nil }
        return downstream
    }
}

/// How the flow of a ``FlowPublisherStateMachine`` ended, boxed so its layout is fixed whatever
/// `Failure` is: unspecialised code tests and clears it with no metadata.
enum FlowPublisherPendingCompletion<Failure: Error> {
    case none
    indirect case some(FlowCompletion<Failure>)

    @inline(__always)
    var isNone: Bool {
        if case .none = self { return true }
        return false
    }

    /// The completion, leaving `.none`.
    @inline(__always)
    mutating func take() -> Self {
        let taken = self
        self = .none
        return taken
    }
}

/// What a ``FlowPublisherStateMachine`` does after a `request`: outside the generic machine, so
/// that unspecialised code (Combine reaches the subscription through protocols) needs no
/// metadata for it.
enum FlowPublisherRequestAction {
    case none
    /// Subscribe to the flow (the first demand), then call ``FlowPublisherStateMachine/started(_:)``.
    case subscribe
    /// This thread delivers: call ``FlowPublisherStateMachine/nextDelivery(adding:)`` until `.stop`.
    case drain
}

/// What a ``FlowPublisherStateMachine`` does after the flow completed (outside the generic
/// machine, like ``FlowPublisherRequestAction``).
struct FlowPublisherCompleteAction {
    /// The flow's token, no longer needed: release it after unlocking.
    var token: CancellationToken?
    /// This thread delivers: call ``FlowPublisherStateMachine/nextDelivery(adding:)`` until `.stop`.
    var drain: Bool
}

/// The flow's side of a ``FlowPublisherStateMachine`` (outside the generic machine, like
/// ``FlowPublisherRequestAction``).
enum FlowPublisherUpstream {
    /// No demand yet: not subscribed.
    case idle
    /// Subscribing, the token not here yet. `cancelWhenSubscribed`: the subscriber cancelled
    /// meanwhile, so the token is cancelled on arrival, before the flow runs.
    case subscribing(cancelWhenSubscribed: Bool)
    /// Subscribed; the token cancels it.
    case subscribed(CancellationToken)
    /// The flow completed, or the subscription was cancelled: nothing more comes.
    case done
}
#endif
