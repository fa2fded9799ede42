/// The task awaiting a `withCompletion` call whose operation returned without completing, and
/// the outcome it awaits: whichever arrives second hands the outcome over. The call's
/// ``FutureCompleter`` makes it and completes it; the task waits on it and leaves it when
/// cancelled.
///
/// ```swift
/// let waiter = CompletionWaiter<Data, any Error>()
/// waiter.complete(.success(data))                   // on the completion's thread
/// let outcome = await waiter.wait(isolation: actor)  // nil: the task was cancelled
/// ```
@usableFromInline
struct CompletionWaiter<Success: Sendable, Failure: Error>: Sendable {
    @usableFromInline
    typealias Machine = CompletionWaiterState<FutureOutcome<Success, Failure>, UnsafeContinuation<FutureOutcome<Success, Failure>?, Never>>

    @usableFromInline let state: Lock<Machine>

    @inlinable
    init() {
        state = .make(.pending)
    }

    /// Hands `outcome` to the task, now or when it waits. Unless the task has left (then the
    /// outcome is dropped), `beforeHandingOver` runs first, after unlocking.
    @inlinable
    func complete(_ outcome: FutureOutcome<Success, Failure>, beforeHandingOver: () -> Void = {}) {
        let completion = state.withLock { $0.complete(outcome) }
        if case .left = completion { return }
        beforeHandingOver()
        if case .resume(let continuation) = completion { continuation.resume(returning: outcome) }
    }

    /// Waits for the outcome; `nil` when the task is cancelled first (or had left).
    @inlinable
    func wait(isolation: isolated (any Actor)?) async -> FutureOutcome<Success, Failure>? {
        await withTaskCancellationHandler {
            _ = isolation  // capturing it keeps this closure on the caller's actor
            return await withUnsafeContinuation { continuation in
                switch state.withLock({ $0.wait(continuation) }) {
                case .suspended: break
                case .outcome(let outcome): continuation.resume(returning: outcome)
                case .left: continuation.resume(returning: nil)
                }
            }
        } onCancel: {
            leave()
        }
    }

    /// The task leaves: it is resumed with `nil` if it waits, and gets `nil` from ``wait(isolation:)``
    /// unless the outcome came first.
    @inlinable
    func leave() {
        state.withLock { $0.leave() }?.resume(returning: nil)
    }
}

extension CompletionWaiter {
    /// Runs `start` with a fresh ``FutureCompleter`` and waits for its completion: at once if it
    /// came while `start` ran, else on a waiter (left at once if the task was cancelled
    /// meanwhile). On cancellation, the cancel action `start` returned runs here, back on the
    /// caller's actor. What `withCompletion` and its kin run.
    @inlinable @inline(__always)
    static func awaitCompletion(
        isolation: isolated (any Actor)?,
        _ bridge: MisuseBridge,
        _ fileID: StaticString,
        _ line: UInt,
        _ start: (FutureCompleter<Success, Failure>) -> (() -> Void)?
    ) async throws -> Success {
        var cancel: (() -> Void)?
        var waiting: CompletionWaiter<Success, Failure>?
        let reporter = MisuseReporter.current(bridge, fileID: fileID, line: line)
        // Decided while the completer is held, so that a cancellation wins over a dropped block.
        var outcome = FutureCompleter.start(reporter: reporter, { cancel = start($0) }) { started -> FutureOutcome<Success, Failure>? in
            switch started {
            case .completed(let outcome):
                return outcome
            case .waiting(let waiter):
                if Task.isCancelled { waiter.leave() }
                waiting = waiter
                return nil
            }
        }
        if let waiting { outcome = await waiting.wait(isolation: isolation) }
        guard let outcome else {
            cancel?()
            throw CancellationError()
        }
        return try outcome.get()
    }
}

/// The decisions of a ``CompletionWaiter``, a plain value (`CompletionWaiterStateTests`):
/// `Waiter` is what the task leaves to be resumed (a continuation).
///
/// ```
/// pending ──complete──▶ completed ──wait──▶ handedOver
///    ├──wait──▶ waiting ──complete──▶ handedOver
///    │             └──leave──▶ left
///    └──leave──▶ left
/// ```
@usableFromInline
enum CompletionWaiterState<Outcome, Waiter> {
    /// Neither the outcome nor the waiting task has come.
    case pending
    /// The task waits.
    case waiting(Waiter)
    /// The outcome came first; the task takes it when it waits.
    case completed(Outcome)
    /// The task has the outcome.
    case handedOver
    /// The task left (cancelled) before the outcome came.
    case left

    /// What the completion is to do once unlocked.
    @usableFromInline
    enum Completion {
        /// Resume the waiting task with the outcome.
        case resume(Waiter)
        /// Nothing: the outcome is kept for the task.
        case kept
        /// Nothing: the task left, and the outcome is dropped.
        case left
    }

    /// What the task is to do once unlocked.
    @usableFromInline
    enum Wait {
        /// Nothing: the completion resumes it.
        case suspended
        /// Resume at once with the outcome that came first.
        case outcome(Outcome)
        /// Resume at once with `nil`: it left.
        case left
    }

    /// The outcome comes (once).
    @inlinable
    mutating func complete(_ outcome: Outcome) -> Completion {
        switch self {
        case .pending:
            self = .completed(outcome)
            return .kept
        case .waiting(let waiter):
            self = .handedOver
            return .resume(waiter)
        case .left:
            return .left
        case .completed, .handedOver:
            preconditionFailure("Internal inconsistency: a withCompletion call completed twice")
        }
    }

    /// The task waits (once), leaving `waiter` to be resumed.
    @inlinable
    mutating func wait(_ waiter: Waiter) -> Wait {
        switch self {
        case .pending:
            self = .waiting(waiter)
            return .suspended
        case .completed(let outcome):
            self = .handedOver
            return .outcome(outcome)
        case .left:
            return .left
        case .waiting, .handedOver:
            preconditionFailure("Internal inconsistency: a withCompletion call waited twice")
        }
    }

    /// The task is cancelled: the waiter to resume with `nil` if it waits. An outcome that came
    /// first stays for the task to take.
    @inlinable
    mutating func leave() -> Waiter? {
        switch self {
        case .pending:
            self = .left
            return nil
        case .waiting(let waiter):
            self = .left
            return waiter
        case .completed, .handedOver, .left:
            return nil
        }
    }
}

extension CompletionWaiterState: Sendable where Outcome: Sendable, Waiter: Sendable {}
