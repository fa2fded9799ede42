import Dispatch

extension Flow {
    /// Delivers every event on `queue`, in order: RxSwift's `observe(on:)`, Combine's
    /// `receive(on:)`.
    ///
    /// The source still runs where it runs; each event is handed to `queue` and delivered
    /// there, never synchronously on the sending thread (even one already on `queue`). The
    /// grammar holds across the hop: values in the order they were sent, then the completion.
    /// After `cancel()` returns on `queue`, nothing more is delivered there; a cancellation from
    /// another thread stops every event that has not started yet. Events wait in an unbounded
    /// buffer while `queue` is busy (as in RxSwift and Combine: a slow queue holds what it has
    /// not delivered yet).
    ///
    /// On a concurrent queue the events still arrive one at a time and in order: one delivery
    /// is scheduled at a time.
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
    /// runs the source's cancel action on the cancelling thread.
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
    public func subscribe<A: Actor>(on actor: A) -> Flow<Element, Failure> {
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
    func hop(_ schedule: @escaping @Sendable (_ deliver: @escaping @Sendable () -> Void) -> Void) -> Flow<Element, Failure> {
        let upstream = self
        return Flow { subscriber in
            let hop = FlowHop(downstream: subscriber, schedule: schedule)
            subscriber.subscription.onCancel { hop.cancel() }
            upstream.run(FlowSubscriber(
                subscription: hop.upstream,
                receive: { hop.enqueue(.value($0)) },
                complete: { hop.enqueueCompletion($0) }
            ))
        }
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
/// The upstream has a subscription of its own (a child of the downstream's), so that an
/// upstream that completes leaves the downstream's subscription active, and cancellable, until
/// the completion has been delivered.
@usableFromInline
final class FlowHop<Element: Sendable, Failure: Error>: Sendable {
    @usableFromInline
    struct State: Sendable {
        @usableFromInline var events = RingBuffer<FlowEvent<Element, Failure>>()
        /// A delivery block is scheduled or running.
        @usableFromInline var scheduled = false
        /// Cancelled, stopped by the downstream, or the completion was taken for delivery.
        @usableFromInline var ended = false

        @inlinable
        init() {}
    }

    @usableFromInline let state: Lock<State>
    @usableFromInline let downstream: FlowSubscriber<Element, Failure>
    @usableFromInline let upstream: FlowSubscription
    @usableFromInline let schedule: @Sendable (_ deliver: @escaping @Sendable () -> Void) -> Void

    @inlinable
    init(
        downstream: FlowSubscriber<Element, Failure>,
        schedule: @escaping @Sendable (_ deliver: @escaping @Sendable () -> Void) -> Void
    ) {
        state = .make(State())
        self.downstream = downstream
        upstream = downstream.subscription.child()
        self.schedule = schedule
    }

    /// An event from the upstream: buffered, and a delivery scheduled unless one is.
    @inlinable
    func enqueue(_ event: FlowEvent<Element, Failure>) -> FlowDemand {
        let startDelivery = state.withLock { state -> Bool? in
            if state.ended { return nil }
            state.events.append(event)
            if state.scheduled { return false }
            state.scheduled = true
            return true
        }
        guard let startDelivery else { return .stop }
        if startDelivery { schedule { self.deliver() } }
        return .more
    }

    @inlinable
    func enqueueCompletion(_ completion: FlowCompletion<Failure>) {
        _ = enqueue(FlowEvent(completion))
    }

    /// Runs on the target context: delivers what is buffered, one event at a time, checking
    /// before each whether the subscription ended meanwhile.
    @inlinable
    func deliver() {
        while true {
            let next = state.withLock { state -> FlowEvent<Element, Failure>? in
                guard !state.ended, let event = state.events.popFirst() else {
                    state.scheduled = false
                    return nil
                }
                if case .value = event {} else { state.ended = true }
                return event
            }
            switch next {
            case nil:
                return
            case .value(let value):
                if case .stop = downstream.receive(value) { stop() }
            case .finished:
                downstream.complete(.finished)
            case .failure(let error):
                downstream.complete(.failure(error))
            }
        }
    }

    /// The downstream was cancelled: nothing more is delivered; what waited is released here.
    @inlinable
    func cancel() {
        let dropped = state.withLock { state -> RingBuffer<FlowEvent<Element, Failure>> in
            state.ended = true
            let dropped = state.events
            state.events = RingBuffer()
            return dropped
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
