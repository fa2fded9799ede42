/// How long `share(replay:scope:)` keeps its connection and its replay buffer.
///
/// ```swift
/// let user = request.share(replay: 1, scope: .forever)
/// ```
public enum ShareScope: Sendable {
    /// The connection to the upstream lives while there are subscribers; it ends when the last
    /// one leaves or the upstream completes, and the next subscriber starts a new one (runs the
    /// upstream again) with an empty buffer. RxSwift's default.
    case whileConnected
    /// The replay buffer and the completion are kept for good: once the upstream has
    /// completed, late subscribers get the replayed values and the completion without running
    /// it again. When every subscriber leaves before that, the upstream is cancelled and the
    /// next subscriber reconnects, keeping the buffer: the latest values the share received
    /// from each connection while it was the current one.
    case forever
}

extension Flow where Element: Sendable {
    /// Shares one subscription to this flow among all subscribers, replaying the latest
    /// `replay` values to each new one.
    ///
    /// The first subscriber connects to the upstream; the others join that connection. The
    /// upstream is cancelled when the last subscriber leaves before it completed. An event that
    /// an ended connection was still delivering on another thread is dropped: it never reaches
    /// (or ends) a later connection, nor the buffer that `.forever` keeps.
    ///
    /// RxSwift: `share(replay:scope:)` (the same scopes and default); Combine: `share()`
    /// (no replay; like `.forever` after completion: late subscribers get the completion,
    /// the upstream does not run again).
    ///
    /// ```swift
    /// let user = Flow { api.getUser(id: 42, completion: $0) }.share(replay: 1, scope: .forever)
    /// let name = user.map(\.name)        // both subscriptions below share one request,
    /// let group = user.map(\.groupID)    // and a late one gets the stored user
    /// ```
    ///
    /// - Parameters:
    ///   - replay: How many of the latest values a new subscriber gets first; zero replays
    ///     none, negative is a precondition failure (README, "Durations and counts").
    ///   - scope: How long the connection and its replayed values outlive the subscribers.
    @inlinable
    public func share(replay: Int = 0, scope: ShareScope = .whileConnected) -> Flow {
        checkCount(replay, of: "share(replay:scope:)", named: "replay count", atLeast: 0)
        let storage = ShareStorage(upstream: self, replay: replay, scope: scope)
        return Flow { subscriber in storage.subscribe(subscriber) }
    }
}

/// The connection behind `share(replay:scope:)` and `ConnectableFlow`: a replaying subject fed
/// by one subscription to the upstream, counted by subscriber (`share`, `refCount()`) or
/// connected by hand (`connect()`).
///
/// Each connection has a subject of its own, fed only by its upstream subscriber. When a
/// connection ends, its subject stops being the current one, so an event still in flight from
/// it reaches nobody and cannot end a later connection. With `.forever` and a replay, the share
/// keeps its own copy of what the current connection received (`carried`), which the next
/// connection's subject starts with: the share never reads a subject's buffer.
@usableFromInline
final class ShareStorage<Element: Sendable, Failure: Error>: Sendable {
    @usableFromInline typealias Subject = SubjectStorage<Element, Failure>

    @usableFromInline
    struct State: Sendable {
        /// The current connection's subject, which subscribers join; `nil` before the first
        /// one, and with `.whileConnected` between connections. With `.forever` it stays once
        /// the upstream completed, for late subscribers.
        @usableFromInline var subject: Subject?
        /// The live subscription to the upstream, if connected (then `subscribers > 0`, unless
        /// a `ConnectableFlow`'s `connect()` connected it).
        @usableFromInline var connection: FlowSubscription?
        @usableFromInline var subscribers = 0
        /// The upstream completed into `subject` (kept with `.forever`).
        @usableFromInline var completed = false
        /// The values the next connection's subject starts with: the latest ones received
        /// while their connection was current. Empty and of capacity zero, never appended to,
        /// unless the scope is `.forever` with a replay; released when the upstream completed.
        @usableFromInline var carried: ReplayBuffer<Element>

        @inlinable
        init(carrying capacity: Int) {
            carried = ReplayBuffer(capacity: capacity)
        }
    }

    @usableFromInline let upstream: Flow<Element, Failure>
    @usableFromInline let replay: Int
    @usableFromInline let scope: ShareScope
    @usableFromInline let state: Lock<State>

    @inlinable
    init(upstream: Flow<Element, Failure>, replay: Int, scope: ShareScope) {
        self.upstream = upstream
        self.replay = replay
        self.scope = scope
        state = .make(State(carrying: scope == .forever ? replay : 0))
    }

    /// Adds a counted subscriber (`share`, `refCount`): the first one connects, and the
    /// connection ends when the last one leaves.
    @inlinable
    func subscribe(_ subscriber: FlowSubscriber<Element, Failure>) {
        let (subject, connection) = state.withLock { state -> (Subject, FlowSubscription?) in
            let subject = currentSubject(&state)
            guard !state.completed else { return (subject, nil) }
            state.subscribers += 1
            guard state.connection == nil else { return (subject, nil) }
            let connection = FlowSubscription()
            state.connection = connection
            return (subject, connection)
        }
        // Strong: a live subscription keeps the connection it may have to cancel. The cycle
        // through the subject's subscriber list ends when the subscription ends.
        subscriber.subscription.onCancel { self.leave(subject) }
        subject.subscribe(subscriber)
        guard let connection else { return }
        run(connection, into: subject)
    }

    /// Adds a subscriber that is not counted (a `ConnectableFlow`'s own): it joins the current
    /// connection's subject, or the next connection's when none is running.
    @inlinable
    func join(_ subscriber: FlowSubscriber<Element, Failure>) {
        state.withLock { currentSubject(&$0) }.subscribe(subscriber)
    }

    /// Connects, unless connected: returns the connection's subject either way (a
    /// `ConnectableFlow`'s `connect()`). Subscribers are not counted for it.
    @inlinable
    func connect() -> Subject {
        let (subject, connection) = state.withLock { state -> (Subject, FlowSubscription?) in
            let subject = currentSubject(&state)
            guard state.connection == nil, !state.completed else { return (subject, nil) }
            let connection = FlowSubscription()
            state.connection = connection
            return (subject, connection)
        }
        if let connection { run(connection, into: subject) }
        return subject
    }

    /// Ends the connection of `subject`, if it is still the current one, whoever subscribed.
    @inlinable
    func disconnect(_ subject: Subject) {
        let (disconnect, ended) = state.withLock { state -> (FlowSubscription?, Subject?) in
            guard state.subject === subject, state.connection != nil else { return (nil, nil) }
            return endConnection(&state)
        }
        disconnect?.cancel()
        _ = ended  // released here, outside the lock
    }

    /// The current connection's subject, made when there is none.
    @inlinable
    func currentSubject(_ state: inout State) -> Subject {
        let subject = state.subject ?? Subject(bufferSize: replay)
        state.subject = subject
        return subject
    }

    /// Subscribes the upstream, with `connection`, to feed `subject`.
    @inlinable
    func run(_ connection: FlowSubscription, into subject: Subject) {
        let ended = connection.cancellationFlag()
        let receive: @Sendable (Element) -> FlowDemand
        if scope == .forever && replay > 0 {
            receive = { value in
                // Ended: the value reaches nobody and is not carried to the next connection.
                guard self.carry(value, into: subject) else { return .stop }
                subject.send(value)
                return ended.isRaised ? .stop : .more
            }
        } else {
            receive = { value in
                subject.send(value)  // nobody follows `subject` once this connection has ended
                // Ended (all left, or `connect()`'s token cancelled): a synchronous upstream stops.
                return ended.isRaised ? .stop : .more
            }
        }
        upstream.run(FlowSubscriber(
            subscription: connection,
            receive: receive,
            complete: { completion in
                // Strong: a connection that nobody else keeps (a `connect()` token dropped)
                // runs until its upstream completes, and must then complete its subscribers.
                // Dropped when this connection has ended; nobody follows `subject` then.
                guard self.completed(subject) else { return }
                subject.complete(completion)
            }
        ))
    }

    /// A subscriber of `subject` left: disconnect when it was the last.
    @inlinable
    func leave(_ subject: Subject) {
        let (disconnect, ended) = state.withLock { state -> (FlowSubscription?, Subject?) in
            guard state.subject === subject, !state.completed else { return (nil, nil) }
            state.subscribers -= 1
            guard state.subscribers == 0 else { return (nil, nil) }
            return endConnection(&state)
        }
        disconnect?.cancel()
        _ = ended  // released here, outside the lock
    }

    /// Ends the current connection (not completed): returns its subscription, to cancel, and
    /// its subject, to release, after unlocking. With `.forever`, the next connection's subject
    /// starts with the carried values.
    @inlinable
    func endConnection(_ state: inout State) -> (FlowSubscription?, Subject?) {
        state.subscribers = 0
        let ended = state.subject.take()
        if scope == .forever, ended != nil {
            state.subject = Subject(bufferSize: replay, initial: state.carried.elements)
        }
        return (state.connection.take(), ended)
    }

    /// A value for the connection of `subject` (`.forever` with a replay): whether that is
    /// still the current connection, and if so, the value is carried to the next one.
    @inlinable
    func carry(_ value: Element, into subject: Subject) -> Bool {
        let (current, evicted) = state.withLock { state -> (Bool, Element?) in
            guard state.subject === subject else { return (false, nil) }
            return (true, state.carried.append(value))
        }
        _ = evicted  // released here, outside the lock
        return current
    }

    /// The upstream completed into `subject`: whether that is the current connection's (the
    /// completion counts), or one that has ended (it is ignored).
    @inlinable
    func completed(_ subject: Subject) -> Bool {
        let (current, connection, ended, carried) = state.withLock { state -> (Bool, FlowSubscription?, Subject?, ReplayBuffer<Element>?) in
            guard state.subject === subject else { return (false, nil, nil, nil) }
            state.subscribers = 0
            let connection = state.connection.take()
            switch scope {
            case .whileConnected: return (true, connection, state.subject.take(), nil)
            case .forever:
                // No connection follows: `subject` keeps the buffer for good.
                state.completed = true
                let carried = state.carried
                state.carried = ReplayBuffer(capacity: 0)
                return (true, connection, nil, carried)
            }
        }
        _ = (connection, ended, carried)  // released here, outside the lock
        return current
    }
}
