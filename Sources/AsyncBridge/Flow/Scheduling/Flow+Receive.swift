import Dispatch

extension Flow {
    /// Delivers every event on `queue`, in order.
    ///
    /// ```swift
    /// downloads.receive(on: .main).subscribe(onValue: { print($0) }, onCompletion: { _ in }).store(in: bag)
    /// ```
    ///
    /// RxSwift: `observe(on:)`; Combine: `receive(on:)`.
    ///
    /// Events are never delivered synchronously on the sending thread, and arrive one at a time
    /// even on a concurrent queue. After `cancel()` returns on `queue` nothing more is
    /// delivered. Events wait in an unbounded buffer while `queue` is busy. For `@MainActor`
    /// handlers use ``receive(on:)-(MainActor)``.
    @inlinable
    public func receive(on queue: DispatchQueue) -> Flow<Element, Failure> {
        hop { deliver in queue.async(execute: deliver) }
    }

    /// Delivers every event while `actor`'s executor runs, in order: the hop of
    /// ``receive(on:)-(DispatchQueue)`` onto an actor.
    ///
    /// ```swift
    /// names.receive(on: cache).subscribe(onValue: { names in cache.assumeIsolated { $0.store(names) } }, onCompletion: { _ in })
    /// ```
    ///
    /// RxSwift: `observe(on:)` with a serial scheduler; Combine: none (schedulers only).
    ///
    /// Handlers run on the actor but are not typed so (use `actor.assumeIsolated`). Order and
    /// cancellation as for a queue.
    @inlinable @_disfavoredOverload  // `receive(on: MainActor.shared)` means the main-actor one
    public func receive<A: Actor>(on actor: A) -> Flow<Element, Failure> {
        hop { deliver in Task { await runIsolated(to: actor, deliver) } }
    }

    /// Starts every subscription on `queue`: the source's subscribe, and the work it starts,
    /// runs there instead of on the subscribing thread.
    ///
    /// ```swift
    /// report.subscribe(on: .global()).receive(on: .main).subscribe { print($0) }.store(in: bag)
    /// ```
    ///
    /// RxSwift: `subscribe(on:)`; Combine: `subscribe(on:)`.
    ///
    /// Events are still delivered where the source sends them. A subscription cancelled before
    /// its start ran never starts; the cancel action runs on the cancelling thread.
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
    /// let rows = query.subscribe(on: database)
    /// ```
    ///
    /// RxSwift: `subscribe(on:)` with a serial scheduler; Combine: none (schedulers only).
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

/// One subscription's hop to another context: events wait in a buffer, and one scheduled block
/// at a time delivers them in order. A block delivers what had arrived when it started and
/// later events go to a new block, so a producer never holds the target. The upstream has a
/// child subscription, so the downstream stays cancellable until the completion is delivered;
/// the handlers are let go of at cancellation, so a waiting block holds nothing of the user's.
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

    /// On the target context: delivers what was buffered when it started, one event at a time,
    /// checking before each whether the subscription ended meanwhile.
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
