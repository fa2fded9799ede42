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
///   - duration: How long to wait, on `clock`; more than zero. A zero timeout could only fail,
///     or race the operation, so zero and negative durations are precondition failures
///     (README, "Durations and counts").
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
    checkDuration(duration, of: "withTimeout(_:)", allowingZero: false)
    checkTolerance(tolerance, of: "withTimeout(_:)")
    try Task.checkCancellation()  // a cancelled caller starts nothing
    // The operation's task, limited by `SharedFuture.timeout`: at the deadline the timeout leaves the
    // run, which, having no other consumer, cancels the task; the call returns at once.
    return try await SharedFuture(operation).timeout(duration, tolerance: tolerance, clock: clock).value
}
