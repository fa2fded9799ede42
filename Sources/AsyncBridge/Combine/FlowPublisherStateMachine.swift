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
/// A struct with no lock and no side effect: ``FlowPublisherSubscription`` calls it under its
/// lock and carries out the returned action after unlocking (subscribing to the flow,
/// delivering to the subscriber, cancelling the flow, passing a dropped value to `onDrop`,
/// releasing the subscriber).
///
/// ```
///          request(n) (first)             the token, before the flow runs
///  .idle ──────────────────▶ .subscribing ──────────────────────────▶ .subscribed(token)
///    │ cancel()                   │ cancel(): the token is cancelled         │ flow completes /
///    │                            │ on arrival (the flow never runs)         │ overflow / cancel()
///    └────────────────────────────┴──────────────▶ .done ◀──────────────────┘
/// ```
///
/// Independently of the flow's side, `downstream` is the subscriber until it has had its
/// completion or cancelled (then `nil`, and everything is ignored), and `delivering` says that
/// one thread is handing values to it: only that thread delivers, so deliveries never overlap,
/// and a `request` made from inside the subscriber's `receive` only adds demand.
///
/// The buffer holds two kinds of values, oldest first: those the outstanding `demand` covers
/// (requested, waiting only for the delivering thread) and, after them, those beyond it. The
/// policy's limit counts only the latter: a requested value is never dropped nor overflows.
///
/// ```swift
/// var machine = FlowPublisherStateMachine<Int, Never, Subscribers.Sink<Int, Never>>(
///     downstream: sink, policy: .bufferingOldest(1))
/// _ = machine.request(.max(1))   // .subscribe: the first demand subscribes to the flow
/// ```
struct FlowPublisherStateMachine<Element, Failure: Error, Downstream> {
    /// The flow's subscription.
    typealias Upstream = FlowPublisherUpstream

    // Unspecialised code is what runs (Combine reaches the subscription through protocols and
    // `AnyPublisher`'s box). There, with `Downstream` a class, no stored property's layout
    // depends on `Element` or `Failure` (the completion and the policy's error are boxed), so
    // the methods the subscription calls, inlined into it, read and write the machine at
    // offsets known at compile time and look up no generic metadata.

    private(set) var upstream = Upstream.idle
    /// The subscriber, until it has had its completion or has cancelled.
    private var downstream: Downstream?
    /// What the subscriber has asked for and not been given.
    private var demand = Subscribers.Demand.none
    /// Whether a thread is delivering to the subscriber (and will look at the buffer again
    /// before it stops).
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
        /// Nothing: it was buffered, or ignored (the subscriber is gone, or the flow's end is
        /// already decided).
        case none
        /// This thread delivers `value` to `downstream`, then goes on with
        /// ``nextDelivery(adding:)`` (adding the demand that `receive` returned) until `.stop`.
        case deliver(Downstream, Element)
        /// The policy dropped this value (the new one, or the oldest one not requested): pass
        /// it to `onDrop`.
        case drop(Element)
        /// The buffer was full under `.failingWhenFull`: cancel the flow (`token`, when it is
        /// known), and, if `drain`, deliver (the failure is queued after the buffered values).
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

    /// Starts a delivery run on this thread if nobody is delivering and there is something
    /// to deliver: a value with demand, or the completion once the buffer is empty (a
    /// completion needs no demand).
    @inline(__always)
    private mutating func startDelivering() -> Bool {
        guard !delivering, downstream != nil else { return false }
        let ready = buffer.isEmpty ? !completion.isNone : demand > .none
        if ready { delivering = true }
        return ready
    }

    /// Empties the buffer and returns what it held, to be released after unlocking (written
    /// here rather than with `SharedQueue.takeAll()`, so that it is inlined).
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
    /// The per-value fast path: the subscriber to hand a value from the flow to, when its
    /// demand is unlimited, nothing is buffered, nobody is delivering and the flow is
    /// subscribed; otherwise `nil`, and the value goes through ``receive(_:)``.
    ///
    /// It changes nothing (it is `mutating` only so that the machine is not copied to call it),
    /// so one lock acquisition decides it, and no second one is needed
    /// after the delivery: unlimited demand stays unlimited whatever `receive` returns, and
    /// no other thread can start delivering meanwhile. A `request` starts a delivery run only
    /// for a buffered value or a completion, and only the flow adds either; the flow delivers
    /// one event at a time (the Rx grammar of ``Flow``: a send from inside the subscriber
    /// waits until this delivery returns), so it adds neither before this value has been
    /// delivered. A flow whose upstream is `.subscribed` has not completed (``complete(_:)``
    /// and an overflow end the upstream), so `completion` is `.none` here.
    ///
    /// Inlined into the caller, where `Downstream` is a class, so that neither a call nor its
    /// result needs generic metadata.
    @inline(__always)
    mutating func unlimitedDelivery() -> Downstream? {
        guard demand == .unlimited, !delivering, buffer.isEmpty else { return nil }
        guard case .subscribed = upstream else { return nil }
        return downstream
    }
}

/// How the flow of a ``FlowPublisherStateMachine`` ended, once it has: of fixed layout
/// whatever `Failure` is (the completion is boxed), so that unspecialised code tests and clears
/// it with no metadata.
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
    /// This thread delivers: call ``FlowPublisherStateMachine/nextDelivery(adding:)`` until it
    /// says `.stop`.
    case drain
}

/// What a ``FlowPublisherStateMachine`` does after the flow completed (outside the generic
/// machine, like ``FlowPublisherRequestAction``).
struct FlowPublisherCompleteAction {
    /// The flow's token, no longer needed: release it after unlocking.
    var token: CancellationToken?
    /// This thread delivers: call ``FlowPublisherStateMachine/nextDelivery(adding:)`` until it
    /// says `.stop`.
    var drain: Bool
}

/// The flow's side of a ``FlowPublisherStateMachine`` (outside the generic machine, like
/// ``FlowPublisherRequestAction``).
enum FlowPublisherUpstream {
    /// No demand yet: not subscribed.
    case idle
    /// `flow.subscribe` has been decided on and its token is not here yet.
    /// `cancelWhenSubscribed`: the subscriber cancelled meanwhile, so the token is cancelled
    /// as soon as it arrives, before the flow runs.
    case subscribing(cancelWhenSubscribed: Bool)
    /// Subscribed; the token cancels it.
    case subscribed(CancellationToken)
    /// The flow completed, or the subscription was cancelled: nothing more comes.
    case done
}
#endif
