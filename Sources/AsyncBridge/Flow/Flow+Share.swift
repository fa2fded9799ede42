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
    /// next subscriber reconnects, keeping the buffer.
    case forever
}

extension Flow where Element: Sendable {
    /// Shares one subscription to this flow among all subscribers, replaying the latest
    /// `replay` values to each new one.
    ///
    /// The first subscriber connects to the upstream; the others join that connection. The
    /// upstream is cancelled when the last subscriber leaves before it completed.
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
    @inlinable
    public func share(replay: Int = 0, scope: ShareScope = .whileConnected) -> Flow {
        precondition(replay >= 0, "share(replay:scope:) needs a replay count of at least 0")
        let storage = ShareStorage(upstream: self, replay: replay, scope: scope)
        return Flow { subscriber in storage.subscribe(subscriber) }
    }
}

/// The connection behind `share(replay:scope:)`: a replaying subject fed by one subscription
/// to the upstream, counted by subscriber.
@usableFromInline
final class ShareStorage<Element: Sendable, Failure: Error>: Sendable {
    @usableFromInline
    struct State: Sendable {
        /// The subject the subscribers join; `nil` before the first one.
        @usableFromInline var subject: SubjectStorage<Element, Failure>?
        /// The live subscription to the upstream, if connected.
        @usableFromInline var connection: FlowSubscription?
        @usableFromInline var subscribers = 0
        /// The upstream completed into `subject` (kept with `.forever`).
        @usableFromInline var completed = false

        @inlinable
        init() {}
    }

    @usableFromInline let upstream: Flow<Element, Failure>
    @usableFromInline let replay: Int
    @usableFromInline let scope: ShareScope
    @usableFromInline let state = Lock.make(State())

    @inlinable
    init(upstream: Flow<Element, Failure>, replay: Int, scope: ShareScope) {
        self.upstream = upstream
        self.replay = replay
        self.scope = scope
    }

    @inlinable
    func subscribe(_ subscriber: FlowSubscriber<Element, Failure>) {
        let (subject, connection) = state.withLock { state -> (SubjectStorage<Element, Failure>, FlowSubscription?) in
            let subject = state.subject ?? SubjectStorage(bufferSize: replay)
            state.subject = subject
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
        upstream.run(FlowSubscriber(
            subscription: connection,
            receive: { value in
                subject.send(value)
                return .more
            },
            complete: { [weak self] completion in
                self?.completed(subject)
                subject.complete(completion)
            }
        ))
    }

    /// A subscriber of `subject` left: disconnect when it was the last.
    @inlinable
    func leave(_ subject: SubjectStorage<Element, Failure>) {
        let disconnect = state.withLock { state -> FlowSubscription? in
            guard state.subject === subject, !state.completed else { return nil }
            state.subscribers -= 1
            guard state.subscribers == 0 else { return nil }
            defer { state.connection = nil }
            if scope == .whileConnected { state.subject = nil }
            return state.connection
        }
        disconnect?.cancel()
    }

    /// The upstream completed into `subject`.
    @inlinable
    func completed(_ subject: SubjectStorage<Element, Failure>) {
        state.withLock { state in
            guard state.subject === subject else { return }
            state.connection = nil
            state.subscribers = 0
            switch scope {
            case .whileConnected: state.subject = nil
            case .forever: state.completed = true
            }
        }
    }
}
