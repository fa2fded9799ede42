/// A cancel action handed back by an operation: it stops the work, and AsyncBridge calls it at
/// most once, only while the work is still running.
///
/// ```swift
/// let future = Future<Data, any Error> { completion in
///     let task = session.dataTask(with: url) { data, _, error in completion(data, error) }
///     task.resume()
///     return { task.cancel() }
/// }
/// ```
public typealias CancelAction = @Sendable () -> Void

/// How one run of a `Future` ended, as the internals see it.
@usableFromInline
enum FutureOutcome<Success: Sendable, Failure: Error>: Sendable {
    case success(Success)
    case failure(Failure)
    /// The bridged API broke its contract (it dropped its completion block, say).
    case broken(AsyncBridgeError)

    /// The value, or the failure or broken contract as an untyped error.
    @inlinable
    func get() throws -> Success {
        switch self {
        case .success(let value): return value
        case .failure(let error): throw error
        case .broken(let error): throw error
        }
    }

    @inlinable
    init(_ result: Result<Success, Failure>) {
        switch result {
        case .success(let value): self = .success(value)
        case .failure(let error): self = .failure(error)
        }
    }
}

/// Someone waiting for a `Future`: an `await` or a subscribed handler.
/// `nil` delivered to a consumer means "you were cancelled".
@usableFromInline
enum FutureConsumer<Success: Sendable, Failure: Error>: Sendable {
    case continuation(UnsafeContinuation<FutureOutcome<Success, Failure>?, Never>)
    case handler(@Sendable (FutureOutcome<Success, Failure>?) -> Void)

    @inlinable
    func deliver(_ outcome: FutureOutcome<Success, Failure>?) {
        switch self {
        case .continuation(let continuation): continuation.resume(returning: outcome)
        case .handler(let handler): handler(outcome)
        }
    }
}

/// The consumers of one run. One consumer is the common case and needs no array.
@usableFromInline
enum FutureConsumers<Success: Sendable, Failure: Error>: Sendable {
    case one(UInt64, FutureConsumer<Success, Failure>)
    case many([(UInt64, FutureConsumer<Success, Failure>)])

    @inlinable
    mutating func append(_ id: UInt64, _ consumer: FutureConsumer<Success, Failure>) {
        switch self {
        case .one(let firstID, let first): self = .many([(firstID, first), (id, consumer)])
        case .many(var all):
            self = .one(0, consumer)  // drop the array's other reference before appending
            all.append((id, consumer))
            self = .many(all)
        }
    }

    /// Removes `id`; returns the removed consumer and whether none is left.
    @inlinable
    mutating func remove(_ id: UInt64) -> (removed: FutureConsumer<Success, Failure>?, isEmpty: Bool) {
        switch self {
        case .one(let onlyID, let only):
            return onlyID == id ? (only, true) : (nil, false)
        case .many(var all):
            guard let index = all.firstIndex(where: { $0.0 == id }) else { return (nil, false) }
            self = .one(0, all[0].1)
            let removed = all.remove(at: index).1
            self = .many(all)
            return (removed, all.isEmpty)
        }
    }

    @inlinable
    func deliver(_ outcome: FutureOutcome<Success, Failure>) {
        switch self {
        case .one(_, let consumer): consumer.deliver(outcome)
        case .many(let all): for (_, consumer) in all { consumer.deliver(outcome) }
        }
    }
}

/// The state of a `Future`, changed only under its lock. Each event returns what to do once
/// the lock is released.
///
/// ```
/// idle ──first consumer──▶ running(g) ──completion of g──▶ finished(g)
///   ▲                          │
///   └──last consumer leaves────┘   (the run's cancel action runs, now or when handed back)
/// ```
@usableFromInline
struct FutureStateMachine<Success: Sendable, Failure: Error> {
    @usableFromInline
    typealias Work = @Sendable (FutureCompleter<Success, Failure>) -> CancelAction?

    @usableFromInline
    enum CancelPhase {
        /// The operation has been started and has not handed back its cancel action yet.
        case starting
        case started(CancelAction?)
    }

    @usableFromInline
    enum State {
        /// No run in progress: nobody has asked yet, or every consumer of the last run left.
        case idle
        /// Run number `generation` is in progress.
        case running(generation: UInt64, cancel: CancelPhase, consumers: FutureConsumers<Success, Failure>)
        /// Run number `generation` ended; its outcome is served to everyone from now on.
        case finished(generation: UInt64, outcome: FutureOutcome<Success, Failure>)
    }

    @usableFromInline
    enum Admission {
        case finished(FutureOutcome<Success, Failure>)
        case admitted(id: UInt64)
    }

    @usableFromInline
    enum AddAction {
        case none
        case deliver(FutureOutcome<Success, Failure>)
        case start(generation: UInt64, work: Work?)
    }

    @usableFromInline var state: State = .idle
    /// The operation; released once a run has finished, since it will never run again.
    @usableFromInline var work: Work?
    @usableFromInline let reporter: MisuseReporter
    @usableFromInline var generation: UInt64 = 0
    @usableFromInline var nextConsumerID: UInt64 = 0

    @inlinable
    init(work: Work?, reporter: MisuseReporter) {
        self.work = work
        self.reporter = reporter
    }

    @inlinable
    init(outcome: FutureOutcome<Success, Failure>) {
        self.work = nil
        self.reporter = MisuseReporter.current
        self.state = .finished(generation: 0, outcome: outcome)
    }

    /// A consumer is about to wait: serve the stored outcome, or hand out an id.
    @inlinable
    mutating func admit() -> Admission {
        if case .finished(_, let outcome) = state { return .finished(outcome) }
        nextConsumerID &+= 1
        return .admitted(id: nextConsumerID)
    }

    @inlinable
    mutating func add(_ id: UInt64, _ consumer: FutureConsumer<Success, Failure>) -> AddAction {
        switch state {
        case .idle:
            generation &+= 1
            state = .running(generation: generation, cancel: .starting, consumers: .one(id, consumer))
            return .start(generation: generation, work: work)
        case .running(let running, let cancel, var consumers):
            state = .idle  // release the enum's reference so `consumers` is uniquely owned
            consumers.append(id, consumer)
            state = .running(generation: running, cancel: cancel, consumers: consumers)
            return .none
        case .finished(_, let outcome):
            return .deliver(outcome)
        }
    }

    /// A consumer leaves. Returns it (to be told it was cancelled) and, when it was the last
    /// one, the cancel action to run.
    @inlinable
    mutating func remove(_ id: UInt64) -> (FutureConsumer<Success, Failure>?, CancelAction?) {
        guard case .running(let running, let cancel, var consumers) = state else { return (nil, nil) }
        state = .idle
        let (removed, isEmpty) = consumers.remove(id)
        guard removed != nil else {
            state = .running(generation: running, cancel: cancel, consumers: consumers)
            return (nil, nil)
        }
        guard isEmpty else {
            state = .running(generation: running, cancel: cancel, consumers: consumers)
            return (removed, nil)
        }
        // The last consumer left: the run is abandoned and the future is idle again.
        // If the operation has not handed back its cancel action yet, `workReturned` runs it.
        if case .started(let action) = cancel { return (removed, action) }
        return (removed, nil)
    }

    /// The operation of run `generation` handed back its cancel action. Returns it when it must
    /// run now: the run was cancelled while the operation was starting (the cancellation latch).
    @inlinable
    mutating func workReturned(_ run: UInt64, cancel action: CancelAction?) -> CancelAction? {
        switch state {
        case .running(run, .starting, let consumers):
            state = .running(generation: run, cancel: .started(action), consumers: consumers)
            return nil
        case .finished(run, _):
            return nil  // it completed while starting: never cancel after completion
        case .running(_, .started, _) where generation == run:
            preconditionFailure("Internal inconsistency: a run handed back its cancel action twice")
        default:
            return action  // the run was cancelled while starting
        }
    }

    /// Run `generation` delivered `outcome`. Returns the consumers to resume and the operation,
    /// which will never run again (to be released outside the lock: releasing it may run the
    /// deinitialisers of what it captured); `nil` when the run had already been cancelled.
    @inlinable
    mutating func complete(
        _ run: UInt64, _ outcome: FutureOutcome<Success, Failure>
    ) -> (consumers: FutureConsumers<Success, Failure>, released: Work?)? {
        guard case .running(run, _, let consumers) = state else { return nil }
        state = .finished(generation: run, outcome: outcome)
        defer { work = nil }
        return (consumers, work)
    }
}
