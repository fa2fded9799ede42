/// One result, later: the hub every one-shot bridge converts to and from.
///
/// ```swift
/// let user = SharedFuture<User, APIError> { api.getUser(id: 42, completion: $0) }
/// let name = try await user.value.name     // starts the request
/// let same = try await user.result         // served from memory: no second request
/// ```
///
/// RxSwift: `Single` + `share(replay: 1, scope: .forever)`; Combine: `Deferred { Future { … } }.share()`.
///
/// Lazy: the operation starts with the first consumer. Shared: concurrent consumers share one
/// run, later ones get the stored result. Cancellable: the ``CancelAction`` runs exactly once
/// when the last consumer leaves before the result, and the future is idle again.
public struct SharedFuture<Success: Sendable, Failure: Error>: Sendable {
    @usableFromInline
    typealias Machine = FutureStateMachine<Success, Failure>

    @usableFromInline
    let storage: Lock<Machine>

    /// A future whose misuse reports name `bridge`, created at `fileID:line`.
    @inlinable
    init(operation: Machine.Operation, bridge: MisuseBridge, fileID: StaticString, line: UInt) {
        storage = .make(Machine(operation: operation, reporter: .current(bridge, fileID: fileID, line: line)))
    }

    /// A future whose operation adapts a completion block of another shape to the completer.
    /// Its completer is the library's: a misuse report from it names this call (`fileID:line`
    /// default to the library's) unless `bridge` says whose block it wraps.
    @inlinable
    init(
        bridge: MisuseBridge = .operator,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        work: @escaping @Sendable (FutureCompleter<Success, Failure>) -> CancelAction?
    ) {
        self.init(operation: .adapted(work), bridge: bridge, fileID: fileID, line: line)
    }

    @inlinable
    init(outcome: FutureOutcome<Success, Failure>) {
        storage = .make(Machine(outcome: outcome))
    }

    // MARK: Consuming

    /// Waits for the result, starting the operation if nobody has yet.
    ///
    /// Throws the `Failure`, `CancellationError`, or ``AsyncBridgeError`` (a broken contract).
    /// Cancelling the last waiting task runs the operation's cancel action.
    ///
    /// ```swift
    /// let user = try await future.value
    /// ```
    @inlinable @inline(__always)
    public var value: Success {
        get async throws {
            guard let outcome = await outcome() else { throw CancellationError() }
            return try outcome.get()
        }
    }

    /// Waits for the result and returns it with its typed failure.
    ///
    /// Throws only `CancellationError` and ``AsyncBridgeError``; the failure is in the `Result`.
    ///
    /// ```swift
    /// let outcome: Result<User, APIError> = try await future.result
    /// ```
    @inlinable @inline(__always)
    public var result: Result<Success, Failure> {
        get async throws {
            switch await outcome() {
            case .success(let value): return .success(value)
            case .failure(let error): return .failure(error)
            case .broken(let error): throw error
            case nil: throw CancellationError()
            }
        }
    }

    // MARK: Internals

    /// Waits as one consumer; `nil` means the waiting task was cancelled.
    ///
    /// Inlined so that a consumer served without waiting makes no async call (an executor hop).
    @inlinable @inline(__always)
    func outcome() async -> FutureOutcome<Success, Failure>? {
        switch arrive(inTask: true) {
        case .served(let outcome): return outcome
        case .waiting(let id, let generation): return await wait(id, generation)
        }
    }

    /// How a consumer's arrival went.
    @usableFromInline
    enum Arrival {
        /// It has its outcome (`nil`: it left) without waiting.
        case served(FutureOutcome<Success, Failure>?)
        /// It waits for run `generation` as consumer `id`.
        case waiting(id: UInt64, generation: UInt64)
    }

    /// A consumer arrives: it gets the stored outcome, or joins the run in progress, or starts
    /// a run (outside the lock) and gets its outcome if the run completed synchronously.
    @inlinable @inline(__always)
    func arrive(inTask: Bool) -> Arrival {
        var operation: Machine.Operation?
        var reporter: MisuseReporter?
        let arrival = storage.withLock { machine in
            let arrival = machine.arrive(operation: &operation)
            if case .starting = arrival { reporter = machine.reporter }
            return arrival
        }
        switch arrival {
        case .finished(let outcome):
            return .served(outcome)
        case .joining(let id, let generation):
            return .waiting(id: id, generation: generation)
        case .starting(let id, let generation):
            return run(id, generation, operation, reporter.unsafelyUnwrapped, inTask: inTask)
        }
    }

    /// Consumer `id` starts run `generation`, outside the lock, with the stored `operation`,
    /// whose misuse goes to `reporter`, and records the cancel action it hands back.
    ///
    /// A consumer that awaits (`inTask`) and was cancelled while the run started leaves at once,
    /// before the completer is released, so the cancellation wins over a dropped block.
    @inlinable
    func run(
        _ id: UInt64,
        _ generation: UInt64,
        _ operation: Machine.Operation?,
        _ reporter: MisuseReporter,
        inTask: Bool
    ) -> Arrival {
        guard case .some = operation else {
            preconditionFailure("Internal inconsistency: a future with no operation was started")
        }
        var cancel: CancelAction?
        // `unsafelyUnwrapped` borrows the operation: `map` would add reabstraction thunks and
        // `if let` a copy.
        let starting = FutureCompleter.start(
            reporter: reporter,
            run: FutureRun(self, generation),
            { cancel = operation.unsafelyUnwrapped.start($0) }
        ) { completed -> Machine.Start in
            if let completed {
                // Completed on this thread while it started: the run has ended with it, and its
                // cancel action is dropped unused.
                return .finished(completed)
            }
            let starting = storage.withLock { $0.started(generation, cancel: cancel) }
            guard case .running = starting, inTask, Task.isCancelled else { return starting }
            return storage.withLock { $0.starterLeaves(id, generation) }
        }
        switch starting {
        case .finished(let outcome):
            return .served(outcome)
        case .running:
            return .waiting(id: id, generation: generation)
        case .left(let cancelling):
            if cancelling { cancel?() }
            return .served(nil)
        }
    }

    /// Waits as consumer `id` until run `generation` finishes or the task is cancelled.
    @inlinable
    func wait(
        _ id: UInt64,
        _ generation: UInt64,
        isolation: isolated (any Actor)? = #isolation
    ) async -> FutureOutcome<Success, Failure>? {
        await withTaskCancellationHandler {
            _ = isolation  // capturing it keeps this closure on the caller's actor
            return await withUnsafeContinuation { continuation in
                if case .deliver(let outcome) = storage.withLock({ $0.install(id, generation, .continuation(continuation)) }) {
                    continuation.resume(returning: outcome)
                }
            }
        } onCancel: {
            remove(id)
        }
    }

    /// Registers a handler consumer; returns its id for `remove`, or `nil` when the handler
    /// was called at once.
    @inlinable
    func subscribe(_ handler: @escaping @Sendable (FutureOutcome<Success, Failure>?) -> Void) -> UInt64? {
        switch arrive(inTask: false) {
        case .served(let outcome):
            handler(outcome)
            return nil
        case .waiting(let id, let generation):
            listen(id, generation, handler)
            return id
        }
    }

    /// Consumer `id`, waiting for run `generation`, listens with `handler`: it is called once,
    /// with the outcome or with `nil` if the consumer leaves, at once if either has happened.
    @inlinable
    func listen(_ id: UInt64, _ generation: UInt64, _ handler: @escaping @Sendable (FutureOutcome<Success, Failure>?) -> Void) {
        let installation = storage.withLock { $0.install(id, generation, .handler(handler)) }
        if case .deliver(let outcome) = installation { handler(outcome) }
    }

    // MARK: One run, for an owner that keeps the future (a single-flight's flight)

    /// The one run of a future made by ``unstartedRun(work:)``: its first consumer has arrived
    /// and starts the run with ``start(inTask:)``.
    @usableFromInline
    struct UnstartedRun: Sendable {
        /// The future, which counts the first consumer as waiting: until the run starts, the
        /// future is not idle, and others may join the run.
        @usableFromInline let future: SharedFuture<Success, Failure>
        @usableFromInline let operation: Machine.Operation
        @usableFromInline let reporter: MisuseReporter

        @inlinable
        init(future: SharedFuture<Success, Failure>, operation: Machine.Operation, reporter: MisuseReporter) {
            self.future = future
            self.operation = operation
            self.reporter = reporter
        }

        /// The first consumer (id 1) starts run 1, as ``SharedFuture/run(_:_:_:_:inTask:)`` does.
        @inlinable
        func start(inTask: Bool) -> Arrival {
            future.run(1, 1, operation, reporter, inTask: inTask)
        }
    }

    /// A future for one run of `work`, whose first consumer has arrived and has not started the
    /// run yet. Making it takes no lock, so an owner may make it under its own. The future keeps
    /// no operation for a second run: once every consumer has left, it stays idle (nobody may
    /// `arrive` at it; ``joinRunInProgress()`` returns `nil`).
    @inlinable
    static func unstartedRun(
        fileID: StaticString = #fileID,
        line: UInt = #line,
        work: @escaping @Sendable (FutureCompleter<Success, Failure>) -> CancelAction?
    ) -> UnstartedRun {
        let reporter = MisuseReporter.current(.operator, fileID: fileID, line: line)
        let future = SharedFuture(storage: .make(Machine(firstConsumerArrived: reporter)))
        return UnstartedRun(future: future, operation: .adapted(work), reporter: reporter)
    }

    @inlinable
    init(storage: Lock<Machine>) {
        self.storage = storage
    }

    /// A consumer arrives without ever starting a run: it waits for the run in progress or is
    /// served the stored outcome; `nil` when the future is idle (its run was abandoned, or it
    /// has not run), which it leaves idle.
    @inlinable
    func joinRunInProgress() -> Arrival? {
        switch storage.withLock({ $0.join() }) {
        case nil: return nil
        case .finished(let outcome)?: return .served(outcome)
        case .joining(let id, let generation)?: return .waiting(id: id, generation: generation)
        case .starting?: preconditionFailure("Internal inconsistency: joining a run started one")
        }
    }

    /// How many consumers wait for the run in progress (0 when none is in progress).
    @inlinable
    var consumerCount: Int {
        storage.withLock { $0.consumerCount }
    }

    /// Ends run `generation` with `outcome`: the first call of the run's completion. Returns the
    /// consumers to tell (and what to release, after unlocking), or `nil` when the run had ended
    /// (abandoned by every consumer) or is another one.
    @inlinable @inline(__always)
    func endRun(_ generation: UInt64, _ outcome: FutureOutcome<Success, Failure>) -> Machine.Completion? {
        storage.withLock { $0.complete(generation, outcome) }
    }

    /// A consumer leaves: runs the cancel action if it was the last, then tells the consumer.
    @inlinable
    func remove(_ id: UInt64) {
        let departure = storage.withLock { $0.remove(id) }
        departure.cancel?()
        departure.consumer?.deliver(nil)
    }
}
