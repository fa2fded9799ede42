/// The error of an operation that did not finish within its time limit.
///
/// ```swift
/// do {
///     let user = try await withTimeout(.seconds(5)) { try await api.user(id: 42) }
/// } catch is TimeoutError {
///     // five seconds passed first
/// }
/// ```
public struct TimeoutError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A timeout error.
    ///
    /// ```swift
    /// throw TimeoutError()
    /// ```
    public init() {}

    /// "the operation timed out".
    public var description: String { "the operation timed out" }
}

/// Runs `operation`, and throws ``TimeoutError`` if it has not finished after `duration` on
/// `clock`.
///
/// Useful for callback APIs that may never call back (a permission prompt, a device that went
/// away): the caller gets an answer either way.
///
/// ```swift
/// let user = try await withTimeout(.seconds(5)) {
///     try await withCompletion { api.getUser(id: 42, completion: $0) }
/// }
/// ```
///
/// At the deadline the operation's task is cancelled and the call throws at once, without
/// waiting for the operation to wind down: an operation that ignores cancellation cannot hold
/// its caller past the deadline. Cancelling the calling task cancels the operation and throws
/// `CancellationError`, also at once. The operation runs in a task of its own, with the
/// caller's priority, so its result must be `Sendable`.
///
/// RxSwift: `timeout(_:scheduler:)` (which fails with `RxError.timeout`); Combine:
/// `timeout(_:scheduler:customError:)` (which *finishes* unless given an error). Here it always
/// fails, with ``TimeoutError``.
///
/// - Parameters:
///   - duration: How long to wait, on `clock`.
///   - tolerance: The clock's leeway for the deadline.
///   - clock: The clock to measure with; `ManualClock` (AsyncBridgeTesting) in tests.
///   - operation: The work to limit.
/// - Returns: The operation's value, if it came first.
/// - Throws: The operation's error, ``TimeoutError``, or `CancellationError`.
public func withTimeout<Success: Sendable, C: Clock>(
    _ duration: C.Duration,
    tolerance: C.Duration? = nil,
    clock: C = ContinuousClock(),
    operation: @escaping @Sendable () async throws -> Success
) async throws -> Success {
    let deadline = clock.now.advanced(by: duration)  // from the call, not from when the timer runs
    let race = TimeoutRace<Success>()
    return try await withTaskCancellationHandler {
        try await withUnsafeThrowingContinuation { continuation in
            guard race.start(continuation) else { return }
            let work = Task {
                let result: Result<Success, any Error>
                do { result = .success(try await operation()) } catch { result = .failure(error) }
                race.finish(with: result)
            }
            let timer = Task {
                do {
                    try await clock.sleep(until: deadline, tolerance: tolerance)
                } catch {
                    return  // cancelled: the race is over
                }
                race.finish(with: .failure(TimeoutError()))
            }
            race.setCancellers(work: work, timer: timer)
        }
    } onCancel: {
        race.finish(with: .failure(CancellationError()))
    }
}

/// The shared state of one ``withTimeout(_:tolerance:clock:operation:)`` call: whichever of
/// the operation, the timer and the caller's cancellation comes first resumes the caller and
/// cancels the other tasks; the rest do nothing.
final class TimeoutRace<Success: Sendable>: Sendable {
    private struct State {
        var continuation: UnsafeContinuation<Success, any Error>?
        var tasks: (work: Task<Void, Never>, timer: Task<Void, Never>)?
        var outcome: Result<Success, any Error>?
        var finished = false
    }

    private let state = Lock.make(State())

    /// Stores the caller's continuation, or resumes it at once if the race is already over
    /// (the caller was cancelled first). Returns whether the race is still on.
    func start(_ continuation: UnsafeContinuation<Success, any Error>) -> Bool {
        let early: Result<Success, any Error>? = state.withLock { state in
            if state.finished { return state.outcome }
            state.continuation = continuation
            return nil
        }
        guard let early else { return true }
        continuation.resume(with: early)
        return false
    }

    /// Hands over the tasks, or cancels them at once if the race is already over.
    func setCancellers(work: Task<Void, Never>, timer: Task<Void, Never>) {
        let finished = state.withLock { state in
            if !state.finished { state.tasks = (work, timer) }
            return state.finished
        }
        if finished {
            work.cancel()
            timer.cancel()
        }
    }

    /// The first call resumes the caller with `result` and cancels both tasks; later calls do
    /// nothing. An outcome that comes before the continuation exists (the caller's
    /// cancellation) is kept and delivered by ``start(_:)``.
    func finish(with result: Result<Success, any Error>) {
        let (continuation, tasks) = state.withLock { state -> (UnsafeContinuation<Success, any Error>?, (work: Task<Void, Never>, timer: Task<Void, Never>)?) in
            if state.finished { return (nil, nil) }
            state.finished = true
            if state.continuation == nil { state.outcome = result }
            defer { state.continuation = nil; state.tasks = nil }
            return (state.continuation, state.tasks)
        }
        tasks?.work.cancel()
        tasks?.timer.cancel()
        continuation?.resume(with: result)
    }
}
