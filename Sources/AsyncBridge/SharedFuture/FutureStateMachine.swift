/// A cancel action an operation registers with `onCancel`: it stops the work, and AsyncBridge
/// calls it at most once, only while the work is still running.
///
/// ```swift
/// let future = SharedFuture<Data, any Error> { completion, onCancel in
///     let task = session.dataTask(with: url) { data, _, error in completion(data, error) }
///     task.resume()
///     onCancel { task.cancel() }
/// }
/// ```
public typealias CancelAction = @Sendable () -> Void

/// How one run of a `SharedFuture` ended, as the internals see it.
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

/// Someone waiting for a `SharedFuture`: an `await` or a subscribed handler.
/// `nil` delivered to a consumer means "you were cancelled".
@usableFromInline
enum FutureConsumer<Success: Sendable, Failure: Error>: Sendable {
    /// A consumer that has arrived but is not listening yet (it may be starting the run, or
    /// about to suspend). It counts as waiting: the run is not abandoned while it is there.
    /// It takes the outcome from the state when it installs its listener.
    case arrived
    case continuation(UnsafeContinuation<FutureOutcome<Success, Failure>?, Never>)
    case handler(@Sendable (FutureOutcome<Success, Failure>?) -> Void)

    @inlinable
    func deliver(_ outcome: FutureOutcome<Success, Failure>?) {
        switch self {
        case .arrived: break
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

    /// Puts `consumer` in the place of `id`; returns whether `id` was there.
    @inlinable
    mutating func replace(_ id: UInt64, with consumer: FutureConsumer<Success, Failure>) -> Bool {
        switch self {
        case .one(let onlyID, _):
            guard onlyID == id else { return false }
            self = .one(id, consumer)
            return true
        case .many(var all):
            // From the end: a consumer installs its listener right after it arrived (appended).
            guard let index = all.lastIndex(where: { $0.0 == id }) else { return false }
            self = .one(0, consumer)  // drop the array's other reference before changing it
            all[index].1 = consumer
            self = .many(all)
            return true
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

/// What a `SharedFuture` runs. An operation with one of the completion-block shapes is kept as the
/// user gave it, so starting it allocates nothing but the completer (the block handed to it
/// captures only the completer); other operations (async closures) are adapted to the completer.
///
/// The shapes are written with the future's own `Success` and `Failure` so that one generic
/// enum holds them all: `(Success?, Failure?)` is the `(T?, Error?)` shape (made only where
/// `Failure == any Error`), `(Failure?)` the `(Error?)` one and `()` the bare signal (made only
/// where `Success == Void`).
@usableFromInline
enum FutureOperation<Success: Sendable, Failure: Error>: Sendable {
    @usableFromInline typealias Body<Completion> = @Sendable (_ completion: Completion) -> Void
    @usableFromInline typealias CancellableBody<Completion> = @Sendable (_ completion: Completion) -> CancelAction

    case result(Body<@Sendable (Result<Success, Failure>) -> Void>)
    case cancellableResult(CancellableBody<@Sendable (Result<Success, Failure>) -> Void>)
    case valueOrError(Body<@Sendable (Success?, Failure?) -> Void>)
    case cancellableValueOrError(CancellableBody<@Sendable (Success?, Failure?) -> Void>)
    case error(Body<@Sendable (Failure?) -> Void>)
    case cancellableError(CancellableBody<@Sendable (Failure?) -> Void>)
    case value(Body<@Sendable (Success) -> Void>)
    case cancellableValue(CancellableBody<@Sendable (Success) -> Void>)
    case signal(Body<@Sendable () -> Void>)
    case cancellableSignal(CancellableBody<@Sendable () -> Void>)
    case adapted(@Sendable (FutureCompleter<Success, Failure>) -> CancelAction?)

    /// Starts the operation for one run; returns its cancel action.
    ///
    /// The `Result` shapes and adapted operations are started here, small enough to be inlined
    /// into the consumer that starts the run; the other shapes in a function of their own.
    @inlinable
    func start(_ completer: FutureCompleter<Success, Failure>) -> CancelAction? {
        switch self {
        case .result(let body):
            body { completer.resolve($0) }
            return nil
        case .cancellableResult(let body):
            return body { completer.resolve($0) }
        case .adapted(let work):
            return work(completer)
        default:
            return startOtherShape(completer)
        }
    }

    /// Starts an operation of a shape other than `Result`.
    @inlinable @inline(never)
    func startOtherShape(_ completer: FutureCompleter<Success, Failure>) -> CancelAction? {
        switch self {
        case .result, .cancellableResult, .adapted:
            preconditionFailure("Internal inconsistency: not an operation of another shape")
        case .valueOrError(let body):
            body { completer.resolve(Result(value: $0, error: $1)) }
            return nil
        case .cancellableValueOrError(let body):
            return body { completer.resolve(Result(value: $0, error: $1)) }
        case .error(let body):
            body { completer.resolve(Result(error: $0, success: Self.void)) }
            return nil
        case .cancellableError(let body):
            return body { completer.resolve(Result(error: $0, success: Self.void)) }
        case .value(let body):
            body { completer.resolve(.success($0)) }
            return nil
        case .cancellableValue(let body):
            return body { completer.resolve(.success($0)) }
        case .signal(let body):
            body { completer.resolve(.success(Self.void)) }
            return nil
        case .cancellableSignal(let body):
            return body { completer.resolve(.success(Self.void)) }
        }
    }

    /// The value of `Success` for the shapes made only where `Success == Void`.
    @inlinable
    static var void: Success {
        unsafeBitCast((), to: Success.self)
    }
}

/// The state of a `SharedFuture`, changed only under its lock. Each event returns what to do once
/// the lock is released.
///
/// ```
/// idle ──first consumer──▶ running(g) ──completion of g──▶ finished(g)
///   ▲                          │
///   └──last consumer leaves────┘   (the run's cancel action runs, now or when handed back)
/// ```
///
/// A consumer arrives (`arrive`), which may make it the one that starts the run; it then
/// either has its outcome (the run completed synchronously, or had finished) or installs its
/// listener (`install`), unless it left (`remove`) in between.
@usableFromInline
struct FutureStateMachine<Success: Sendable, Failure: Error>: Sendable {
    @usableFromInline
    typealias Operation = FutureOperation<Success, Failure>

    @usableFromInline
    enum CancelPhase: Sendable {
        /// The operation has been started and has not handed back its cancel action yet.
        case starting
        case started(CancelAction?)
    }

    @usableFromInline
    enum State: Sendable {
        /// No run in progress: nobody has asked yet, or every consumer of the last run left.
        case idle
        /// Run number `generation` is in progress.
        case running(generation: UInt64, cancel: CancelPhase, consumers: FutureConsumers<Success, Failure>)
        /// Run number `generation` ended; its outcome is served to everyone from now on.
        case finished(generation: UInt64, outcome: FutureOutcome<Success, Failure>)
    }

    // The results of events carry no closures: a closure returned through `Lock.withLock`'s
    // generic result (bare, optional or in a tuple) gets reabstraction thunks, two allocations
    // each, and an enum with a closure among its payloads is copied through its generic value
    // witness. Closures leave through `inout` parameters instead.

    @usableFromInline
    enum Arrival {
        /// The outcome is already there.
        case finished(FutureOutcome<Success, Failure>)
        /// The caller is the first consumer: it starts run `generation`.
        case starting(id: UInt64, generation: UInt64)
        /// Run `generation` is in progress; the caller waits for it.
        case joining(id: UInt64, generation: UInt64)
    }

    @usableFromInline
    enum Start {
        /// The run completed while starting.
        case finished(FutureOutcome<Success, Failure>)
        /// The run is in progress and holds its cancel action.
        case running
        /// The consumer that started the run left; `cancelling`: it was the last one, so the
        /// cancel action it handed in is to run now.
        case left(cancelling: Bool)
    }

    @usableFromInline
    enum Installation {
        /// The consumer is listening: it will be told.
        case listening
        /// The consumer is to be told at once: the outcome, or `nil` when it had left.
        case deliver(FutureOutcome<Success, Failure>?)
    }

    @usableFromInline
    struct Departure {
        /// The consumer that left, to be told it was cancelled.
        @usableFromInline var consumer: FutureConsumer<Success, Failure>?
        /// The cancel action, when the consumer was the last one.
        @usableFromInline var cancel: CancelAction?

        @inlinable
        init(_ consumer: FutureConsumer<Success, Failure>?, cancel: CancelAction?) {
            self.consumer = consumer
            self.cancel = cancel
        }
    }

    @usableFromInline
    struct Completion {
        /// The consumers to resume; `nil` when nobody listens yet (the one consumer takes the
        /// outcome from the state when it installs its listener, or has it already).
        @usableFromInline var consumers: FutureConsumers<Success, Failure>?
        /// The operation, which will never run again: released outside the lock, since
        /// releasing it may run the deinitialisers of what it captured.
        @usableFromInline var released: Operation?
        /// The run's cancel action, which will never run: released outside the lock for the
        /// same reason (a guard it owns may call the completion from its `deinit`).
        @usableFromInline var releasedCancel: CancelAction?

        @inlinable
        init(_ consumers: FutureConsumers<Success, Failure>?, released: Operation?, releasedCancel: CancelAction?) {
            self.consumers = consumers
            self.released = released
            self.releasedCancel = releasedCancel
        }
    }

    @usableFromInline var state: State = .idle
    /// The operation; released once a run has finished, since it will never run again.
    @usableFromInline var operation: Operation?
    @usableFromInline let reporter: MisuseReporter
    @usableFromInline var generation: UInt64 = 0
    @usableFromInline var nextConsumerID: UInt64 = 0

    @inlinable
    init(operation: Operation?, reporter: MisuseReporter) {
        self.operation = operation
        self.reporter = reporter
    }

    @inlinable
    init(outcome: FutureOutcome<Success, Failure>) {
        self.operation = nil
        self.reporter = .current(.operator, fileID: #fileID, line: #line)  // finished: never reports
        self.state = .finished(generation: 0, outcome: outcome)
    }

    /// The state right after the first consumer (id 1) arrived at run 1, for a future made
    /// for one run and keeping no operation for another: the consumer holds the operation and
    /// starts the run (``SharedFuture/UnstartedRun``).
    @inlinable
    init(firstConsumerArrived reporter: MisuseReporter) {
        self.operation = nil
        self.reporter = reporter
        self.generation = 1
        self.nextConsumerID = 1
        self.state = .running(generation: 1, cancel: .starting, consumers: .one(1, .arrived))
    }

    /// How many consumers the run in progress has (0 when none is in progress).
    @inlinable
    var consumerCount: Int {
        guard case .running(_, _, let consumers) = state else { return 0 }
        switch consumers {
        case .one: return 1
        case .many(let all): return all.count
        }
    }

    /// A consumer arrives without starting a run: it joins the run in progress or is served the
    /// stored outcome; `nil` when the future is idle (every consumer of its run left), which
    /// stays idle.
    @inlinable
    mutating func join() -> Arrival? {
        if case .idle = state { return nil }
        var none: Operation?
        return arrive(operation: &none)
    }

    /// A consumer arrives: serve the stored outcome, or register it (as `.arrived`) in the
    /// current run, starting one if there is none; the starter gets the `operation`.
    @inlinable
    mutating func arrive(operation start: inout Operation?) -> Arrival {
        switch state {
        case .finished(_, let outcome):
            return .finished(outcome)
        case .idle:
            nextConsumerID &+= 1
            generation &+= 1
            state = .running(generation: generation, cancel: .starting, consumers: .one(nextConsumerID, .arrived))
            start = operation
            return .starting(id: nextConsumerID, generation: generation)
        case .running(let running, let cancel, var consumers):
            nextConsumerID &+= 1
            state = .idle  // release the enum's reference so `consumers` is uniquely owned
            consumers.append(nextConsumerID, .arrived)
            state = .running(generation: running, cancel: cancel, consumers: consumers)
            return .joining(id: nextConsumerID, generation: running)
        }
    }

    /// The operation of run `generation` handed back its cancel action.
    ///
    /// The consumer that started the run is still there (`.arrived`), so the run cannot have
    /// been abandoned; `.left` only keeps the latch of the cancel action honest should that
    /// change.
    @inlinable
    mutating func started(_ run: UInt64, cancel action: CancelAction?) -> Start {
        switch state {
        case .running(run, .starting, let consumers):
            state = .running(generation: run, cancel: .started(action), consumers: consumers)
            return .running
        case .finished(run, let outcome):
            return .finished(outcome)  // it completed while starting: never cancel after completion
        case .running(_, .started, _) where generation == run:
            preconditionFailure("Internal inconsistency: a run handed back its cancel action twice")
        default:
            return .left(cancelling: true)  // every consumer left while it was starting
        }
    }

    /// The consumer that started run `generation` leaves before listening (its task was
    /// cancelled while the run was starting), unless the run has finished.
    @inlinable
    mutating func starterLeaves(_ id: UInt64, _ run: UInt64) -> Start {
        if case .finished(run, let outcome) = state { return .finished(outcome) }
        return .left(cancelling: remove(id).cancel != nil)
    }
    /// Consumer `id`, which arrived during run `generation`, starts listening, unless run
    /// `generation` has finished (it gets the outcome) or the consumer has left (`nil`).
    @inlinable
    mutating func install(_ id: UInt64, _ run: UInt64, _ consumer: FutureConsumer<Success, Failure>) -> Installation {
        // Not `switch state { case .running(run, …) }`: matching the expression pattern `run`
        // keeps a copy of the state for the whole switch, so `consumers` would be shared and
        // `replace` would copy the array, each consumer's install costing one copy of all.
        if case .running(let running, let cancel, var consumers) = state, running == run {
            state = .idle  // release the enum's reference so `consumers` is uniquely owned
            let present = consumers.replace(id, with: consumer)
            state = .running(generation: run, cancel: cancel, consumers: consumers)
            return present ? .listening : .deliver(nil)
        }
        if case .finished(run, let outcome) = state { return .deliver(outcome) }
        return .deliver(nil)
    }

    /// A consumer leaves. Returns it (to be told it was cancelled) and, when it was the last
    /// one, the cancel action to run.
    @inlinable
    mutating func remove(_ id: UInt64) -> Departure {
        guard case .running(let running, let cancel, var consumers) = state else { return Departure(nil, cancel: nil) }
        state = .idle
        let (removed, isEmpty) = consumers.remove(id)
        guard removed != nil else {
            state = .running(generation: running, cancel: cancel, consumers: consumers)
            return Departure(nil, cancel: nil)
        }
        guard isEmpty else {
            state = .running(generation: running, cancel: cancel, consumers: consumers)
            return Departure(removed, cancel: nil)
        }
        // The last consumer left: the run is abandoned and the future is idle again.
        // If the operation has not handed back its cancel action yet, `started` returns it.
        if case .started(let action) = cancel { return Departure(removed, cancel: action) }
        return Departure(removed, cancel: nil)
    }

    /// Run `generation` delivered `outcome`. Returns the consumers to resume and the operation
    /// and cancel action to release after unlocking; `nil` when the run had already been
    /// abandoned.
    @inlinable
    mutating func complete(_ run: UInt64, _ outcome: FutureOutcome<Success, Failure>) -> Completion? {
        guard case .running(run, let cancel, let consumers) = state else { return nil }
        state = .finished(generation: run, outcome: outcome)
        let action: CancelAction?
        if case .started(let started) = cancel { action = started } else { action = nil }
        let listening: FutureConsumers<Success, Failure>?
        if case .one(_, .arrived) = consumers { listening = nil } else { listening = consumers }
        return Completion(listening, released: operation.take(), releasedCancel: action)
    }
}
