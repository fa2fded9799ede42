/// One result, later: the hub every one-shot bridge converts to and from.
///
/// A `Future` is
/// - **lazy**: its operation starts when the first consumer arrives, not when it is created
///   (unlike Combine's `Future`, which starts at once);
/// - **shared**: concurrent consumers share one run of the operation, and consumers that come
///   after it finished get the stored result without running it again (what RxSwift's
///   `share(replay: 1)` gives a request, built in);
/// - **cancellable**: the operation may hand back a ``CancelAction``. It runs exactly once,
///   when the last consumer goes away before the operation finished, and never after. The
///   future is then idle again, and a later consumer starts a new run.
///
/// Useful for wrapping a completion-block API once and handing the result to async code,
/// to old callers and to several screens at the same time:
///
/// ```swift
/// let user = Future<User, APIError> { completion in
///     api.getUser(id: 42, completion: completion)
/// }
/// let name = try await user.value.name     // starts the request
/// let same = try await user.result         // served from memory: no second request
/// ```
///
/// RxSwift: `Single` + `share(replay: 1)`; Combine: `Deferred { Future { … } }.share()`.
public struct Future<Success: Sendable, Failure: Error>: Sendable {
    @usableFromInline
    typealias Machine = FutureStateMachine<Success, Failure>

    @usableFromInline
    let storage: Lock<Machine>

    @inlinable
    init(work: Machine.Work?) {
        storage = .make(Machine(work: work, reporter: .current))
    }

    @inlinable
    init(outcome: FutureOutcome<Success, Failure>) {
        storage = .make(Machine(outcome: outcome))
    }

    // MARK: Consuming

    /// Waits for the result, starting the operation if nobody has yet.
    ///
    /// Throws the future's `Failure`, `CancellationError` when the waiting task is cancelled
    /// first, or ``AsyncBridgeError`` when the bridged API broke its contract. Cancelling the
    /// last waiting task runs the operation's cancel action.
    ///
    /// ```swift
    /// let user = try await future.value
    /// ```
    @inlinable
    public var value: Success {
        get async throws {
            guard let outcome = await outcome(startingWith: Future.missingOperation) else { throw CancellationError() }
            return try outcome.get()
        }
    }

    /// Waits for the result and returns it with its typed failure.
    ///
    /// Only `CancellationError` (the waiting task was cancelled) and ``AsyncBridgeError`` (the
    /// bridged API broke its contract) are thrown; the operation's own failure is inside the
    /// returned `Result`.
    ///
    /// ```swift
    /// switch try await future.result {
    /// case .success(let user): show(user)
    /// case .failure(let error): show(error)  // typed: APIError
    /// }
    /// ```
    @inlinable
    public var result: Result<Success, Failure> {
        get async throws {
            switch await outcome(startingWith: Future.missingOperation) {
            case .success(let value): return .success(value)
            case .failure(let error): return .failure(error)
            case .broken(let error): throw error
            case nil: throw CancellationError()
            }
        }
    }

    // MARK: Internals

    /// Waits as one consumer; `nil` means the waiting task was cancelled. `start` is used when
    /// this future has no stored operation (the direct `withCompletion` helpers), on the
    /// caller's actor.
    @inlinable
    func outcome(
        isolation: isolated (any Actor)? = #isolation,
        startingWith start: (FutureCompleter<Success, Failure>) -> CancelAction?
    ) async -> FutureOutcome<Success, Failure>? {
        let id: UInt64
        switch storage.withLock({ $0.admit() }) {
        case .finished(let outcome): return outcome
        case .admitted(let admitted): id = admitted
        }
        return await withTaskCancellationHandler {
            _ = isolation  // capturing it keeps this closure, and so `start`, on the caller's actor
            return await withUnsafeContinuation { continuation in
                add(id, .continuation(continuation), startingWith: start)
                // A cancellation that arrived before `add` found nothing to remove.
                if Task.isCancelled { remove(id) }
            }
        } onCancel: {
            remove(id)
        }
    }

    /// Registers a handler consumer; returns its id for `remove`.
    @inlinable
    func subscribe(_ handler: @escaping @Sendable (FutureOutcome<Success, Failure>?) -> Void) -> UInt64? {
        switch storage.withLock({ $0.admit() }) {
        case .finished(let outcome):
            handler(outcome)
            return nil
        case .admitted(let id):
            add(id, .handler(handler), startingWith: Future.missingOperation)
            return id
        }
    }

    @inlinable
    func add(
        _ id: UInt64,
        _ consumer: FutureConsumer<Success, Failure>,
        startingWith start: (FutureCompleter<Success, Failure>) -> CancelAction?
    ) {
        switch storage.withLock({ $0.add(id, consumer) }) {
        case .none:
            break
        case .deliver(let outcome):
            consumer.deliver(outcome)
        case .start(let generation, let work):
            let completer = FutureCompleter(self, generation: generation)
            let cancel = work.map { $0(completer) } ?? start(completer)
            if let action = storage.withLock({ $0.workReturned(generation, cancel: cancel) }) {
                action()
            }
        }
    }

    /// The `start` of consumers that rely on the stored operation.
    @inlinable
    static func missingOperation(_: FutureCompleter<Success, Failure>) -> CancelAction? {
        preconditionFailure("Internal inconsistency: a future with no operation was started")
    }

    /// A consumer leaves: runs the cancel action if it was the last, then tells the consumer.
    @inlinable
    func remove(_ id: UInt64) {
        let (consumer, cancel) = storage.withLock { $0.remove(id) }
        cancel?()
        consumer?.deliver(nil)
    }
}

/// The completion side of one run of a `Future`. The completion blocks handed to APIs capture
/// it; when it is released without having been called, the run ends with
/// ``AsyncBridgeError/completionNeverCalled`` instead of hanging.
@usableFromInline
final class FutureCompleter<Success: Sendable, Failure: Error>: @unchecked Sendable {
    @usableFromInline typealias Machine = FutureStateMachine<Success, Failure>
    @usableFromInline let future: Future<Success, Failure>
    @usableFromInline let generation: UInt64
    /// Guarded by the future's lock.
    @usableFromInline var called = false

    @inlinable
    init(_ future: Future<Success, Failure>, generation: UInt64) {
        self.future = future
        self.generation = generation
    }

    /// Delivers the run's outcome; a second call is ignored and reported.
    @inlinable
    func complete(_ outcome: FutureOutcome<Success, Failure>) {
        let finished: (consumers: FutureConsumers<Success, Failure>, released: Machine.Work?)?
        let reporter: MisuseReporter?
        (finished, reporter) = future.storage.withLock { machine in
            if called { return (nil, machine.reporter) }
            called = true
            return (machine.complete(generation, outcome), nil)
        }
        reporter?.report(.completionCalledMoreThanOnce)
        finished?.consumers.deliver(outcome)
    }

    /// Delivers a `Result`: what completion blocks of every shape end up calling.
    @inlinable
    func resolve(_ result: Result<Success, Failure>) {
        complete(FutureOutcome(result))
    }

    @inlinable
    deinit {
        let outcome = FutureOutcome<Success, Failure>.broken(.completionNeverCalled)
        let finished: (consumers: FutureConsumers<Success, Failure>, released: Machine.Work?)?
        let reporter: MisuseReporter?
        (finished, reporter) = future.storage.withLock { machine in
            if called { return (nil, nil) }
            called = true
            guard let finished = machine.complete(generation, outcome) else { return (nil, nil) }
            return (finished, machine.reporter)
        }
        reporter?.report(.completionNeverCalled)
        finished?.consumers.deliver(outcome)
    }
}
