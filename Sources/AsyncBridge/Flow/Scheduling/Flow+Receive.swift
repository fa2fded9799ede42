import Dispatch

extension Flow {
    /// Delivers every event on `queue`, in order: RxSwift's `observe(on:)`, Combine's
    /// `receive(on:)`.
    ///
    /// The source still runs where it runs; each event is handed to `queue` and delivered
    /// there, never synchronously on the sending thread (even one already on `queue`). The
    /// grammar holds across the hop: values in the order they were sent, then the completion.
    /// After `cancel()` returns on `queue`, nothing more is delivered there, and the handlers
    /// are released; a cancellation from another thread stops every event that has not started.
    ///
    /// Events wait in an unbounded buffer while `queue` is busy, as with RxSwift's
    /// `observe(on:)` (Combine's `receive(on:)` passes demand upstream instead; a `Flow` has no
    /// demand, so a source faster than `queue` grows the buffer). Where RxSwift and Combine
    /// schedule a block per event, one block here delivers what had arrived when it started:
    /// events that arrive meanwhile (from a fast producer, or sent by a handler into its own
    /// source) go to a new block, behind whatever was enqueued on `queue` in between, so a
    /// producer never holds the queue. On a concurrent queue the events still arrive one at a
    /// time and in order: one block is scheduled at a time.
    ///
    /// ```swift
    /// downloads.receive(on: .main)
    ///     .subscribe(onValue: { print("progress", $0) }, onCompletion: { _ in print("done") })
    ///     .store(in: bag)
    /// ```
    ///
    /// To change main-actor state in the handlers, use ``receive(on:)-(MainActor)``, whose
    /// handlers are isolated to the main actor.
    @inlinable
    public func receive(on queue: DispatchQueue) -> Flow<Element, Failure> {
        hop { deliver in queue.async(execute: deliver) }
    }

    /// Delivers every event while `actor`'s executor runs, in order: the hop of
    /// ``receive(on:)-(DispatchQueue)`` onto an actor.
    ///
    /// Handlers run isolated to `actor` in effect (they are not typed so: reach its state with
    /// `actor.assumeIsolated { … }`). Order, grammar and cancellation as for a queue: nothing
    /// is delivered after `cancel()` returns on the actor.
    ///
    /// ```swift
    /// actor Cache {
    ///     var latest: [String] = []
    ///     func store(_ names: [String]) { latest = names }
    /// }
    /// let cache = Cache()
    /// names.receive(on: cache)
    ///     .subscribe(onValue: { names in cache.assumeIsolated { $0.store(names) } }, onCompletion: { _ in })
    ///     .store(in: bag)
    /// ```
    ///
    /// RxSwift: `observe(on:)` with a serial scheduler; Combine: `receive(on:)` (schedulers
    /// only; no actor).
    @inlinable @_disfavoredOverload  // `receive(on: MainActor.shared)` means the main-actor one
    public func receive<A: Actor>(on actor: A) -> Flow<Element, Failure> {
        hop { deliver in Task { await runIsolated(to: actor, deliver) } }
    }

    /// Starts every subscription on `queue`: the source's subscribe (and whatever work it
    /// does when it starts, such as a request) runs there instead of on the subscribing
    /// thread. RxSwift's `subscribe(on:)`, Combine's `subscribe(on:)`.
    ///
    /// Events are still delivered where the source sends them (use ``receive(on:)-(DispatchQueue)``
    /// to choose that); a subscription cancelled before its start ran never starts. Cancelling
    /// runs the source's cancel action on the cancelling thread (or, for a cancellation that
    /// races the start, on `queue` as the source registers it).
    ///
    /// ```swift
    /// let report = Flow<Report, any Error> { completion in
    ///     completion(Result { try buildReport() })   // heavy work
    /// }
    /// report.subscribe(on: .global()).receive(on: .main)
    ///     .subscribe { event in print(event) }
    ///     .store(in: bag)
    /// ```
    @inlinable
    public func subscribe(on queue: DispatchQueue) -> Flow<Element, Failure> {
        let upstream = self
        return Flow { subscriber in
            queue.async {
                if subscriber.subscription.isCancelled { return }
                upstream.run(subscriber)
            }
        }
    }

    /// Starts every subscription while `actor`'s executor runs: ``subscribe(on:)-(DispatchQueue)``
    /// onto an actor.
    ///
    /// ```swift
    /// actor Database {
    ///     func changes() -> Flow<[String], Never> { .just([]) }
    /// }
    /// let database = Database()
    /// let rows = Flow<[String], Never>.just(["a"]).subscribe(on: database)
    /// ```
    ///
    /// RxSwift: `subscribe(on:)` with a serial scheduler; Combine: `subscribe(on:)` (schedulers
    /// only).
    @inlinable
    public func subscribe(on actor: any Actor) -> Flow<Element, Failure> {
        let upstream = self
        return Flow { subscriber in
            Task {
                await runIsolated(to: actor) {
                    if subscriber.subscription.isCancelled { return }
                    upstream.run(subscriber)
                }
            }
        }
    }

    /// The flow that hands every event to `schedule` and delivers it in the block `schedule`
    /// runs, in order, one block at a time.
    @inlinable
    func hop(
        inlineWhen mayDeliverHere: (@Sendable () -> Bool)? = nil,
        _ schedule: @escaping @Sendable (_ deliver: @escaping @Sendable () -> Void) -> Void
    ) -> Flow<Element, Failure> {
        let upstream = self
        return Flow { subscriber in
            let hop = FlowHop(downstream: subscriber, mayDeliverHere: mayDeliverHere, schedule: schedule)
            subscriber.subscription.onCancel { hop.cancel() }
            upstream.run(FlowSubscriber(
                subscription: hop.upstream,
                receive: { hop.enqueue(.value($0)) },
                complete: { hop.enqueueCompletion($0) }
            ))
        }
    }
}

extension Flow {
    /// The hop of a ``MainActorFlow``'s subscription: to the main queue, or, with `inline`, at
    /// once when the event comes on the main queue and nothing waits.
    @inlinable
    func hop(toMainInline inline: Bool) -> Flow<Element, Failure> {
        let onMainQueue: @Sendable () -> Bool = { MainQueue.isCurrent }
        return hop(inlineWhen: inline ? onMainQueue : nil) { deliver in DispatchQueue.main.async(execute: deliver) }
    }
}

/// Whether the caller runs on the main queue (and so on the main actor).
@usableFromInline
enum MainQueue {
    /// Unchecked: the key is only handed to Dispatch, whose specific-data calls are thread-safe.
    @usableFromInline
    struct Key: @unchecked Sendable {
        @usableFromInline let key: DispatchSpecificKey<Bool>
    }

    @usableFromInline
    static let key: Key = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return Key(key: key)
    }()

    @inlinable
    static var isCurrent: Bool {
        DispatchQueue.getSpecific(key: key.key) == true
    }
}

/// Runs `body` on `actor`'s executor.
@usableFromInline
func runIsolated(to actor: isolated any Actor, _ body: @Sendable () -> Void) {
    body()
}

/// One subscription's hop to another context: events wait in a buffer, and one scheduled
/// block at a time delivers them in order.
///
/// A block delivers what had arrived when it started; what arrives meanwhile (a handler that
/// sends into its own source, a fast producer) goes to a new block, scheduled behind whatever
/// was enqueued on the target in between, so a producer never holds the target.
///
/// The upstream has a subscription of its own (a child of the downstream's), so that an
/// upstream that completes leaves the downstream's subscription active, and cancellable, until
/// the completion has been delivered. The downstream (the user's handlers) is held in the state
/// and let go of at cancellation, so a block still waiting for a busy target holds nothing of
/// the user's.
@usableFromInline
final class FlowHop<Element: Sendable, Failure: Error>: Sendable {
    @usableFromInline
    struct State: Sendable {
        @usableFromInline var events = RingBuffer<FlowEvent<Element, Failure>>()
        /// `nil` once cancelled, stopped by the downstream, or its completion was taken.
        @usableFromInline var downstream: FlowSubscriber<Element, Failure>?
        /// A delivery block is scheduled or running.
        @usableFromInline var scheduled = false

        @inlinable
        init(downstream: FlowSubscriber<Element, Failure>) {
            self.downstream = downstream
        }
    }

    /// What a delivery block does next.
    @usableFromInline
    enum Step {
        case value(Element)
        /// The completion, with the downstream the state let go of (released after delivering).
        case complete(FlowCompletion<Failure>, FlowSubscriber<Element, Failure>?)
        case idle
        /// Events arrived after the block started: a new block delivers them.
        case reschedule
    }

    @usableFromInline let state: Lock<State>
    @usableFromInline let upstream: FlowSubscription
    @usableFromInline let schedule: @Sendable (_ deliver: @escaping @Sendable () -> Void) -> Void
    /// Whether an event that finds nothing waiting may be delivered on the calling thread.
    @usableFromInline let mayDeliverHere: (@Sendable () -> Bool)?

    @inlinable
    init(
        downstream: FlowSubscriber<Element, Failure>,
        mayDeliverHere: (@Sendable () -> Bool)? = nil,
        schedule: @escaping @Sendable (_ deliver: @escaping @Sendable () -> Void) -> Void
    ) {
        state = .make(State(downstream: downstream))
        upstream = downstream.subscription.child()
        self.schedule = schedule
        self.mayDeliverHere = mayDeliverHere
    }

    /// An event from the upstream: buffered, and a delivery scheduled unless one is.
    @inlinable
    func enqueue(_ event: FlowEvent<Element, Failure>) -> FlowDemand {
        let startDelivery = state.withLock { state -> Bool? in
            if state.downstream == nil { return nil }
            state.events.append(event)
            if state.scheduled { return false }
            state.scheduled = true
            return true
        }
        guard let startDelivery else { return .stop }
        if startDelivery {
            if let mayDeliverHere, mayDeliverHere() {
                deliver()
            } else {
                schedule { self.deliver() }
            }
        }
        return .more
    }

    @inlinable
    func enqueueCompletion(_ completion: FlowCompletion<Failure>) {
        _ = enqueue(FlowEvent(completion))
    }

    /// Runs on the target context: delivers what was buffered when it started, one event at a
    /// time, checking before each whether the subscription ended meanwhile.
    @inlinable
    func deliver() {
        // The block's own reference to the handlers: it lasts until the block returns.
        let (count, downstream) = state.withLock { ($0.events.count, $0.downstream) }
        var remaining = count
        while true {
            let step = state.withLock { state -> Step in
                guard state.downstream != nil, !state.events.isEmpty else {
                    state.scheduled = false
                    return .idle
                }
                if remaining == 0 { return .reschedule }
                remaining -= 1
                switch state.events.removeFirst() {
                case .value(let value):
                    return .value(value)
                case .finished:
                    defer { state.downstream = nil }
                    return .complete(.finished, state.downstream)
                case .failure(let error):
                    defer { state.downstream = nil }
                    return .complete(.failure(error), state.downstream)
                }
            }
            switch step {
            case .value(let value):
                if case .stop = downstream?.receive(value) { stop() }
            case .complete(let completion, let held):
                downstream?.complete(completion)
                _ = held  // released here, unlocked
                return
            case .idle:
                return
            case .reschedule:
                schedule { self.deliver() }
                return
            }
        }
    }

    /// The downstream was cancelled: nothing more is delivered; what waited, and the handlers,
    /// are released here (a block already running lets go of them when it returns).
    @inlinable
    func cancel() {
        let dropped = state.withLock { state -> (RingBuffer<FlowEvent<Element, Failure>>, FlowSubscriber<Element, Failure>?) in
            defer {
                state.events = RingBuffer()
                state.downstream = nil
            }
            return (state.events, state.downstream)
        }
        _ = dropped  // released here, unlocked
    }

    /// The downstream wants nothing more: ends like a cancellation, and cancels the upstream.
    @inlinable
    func stop() {
        cancel()
        upstream.cancel()
    }
}
