/// The error of an operation that did not finish within its time limit.
///
/// ```swift
/// catch is TimeoutError { showOfflineBanner() }
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
/// ```swift
/// let user = try await withTimeout(.seconds(5)) { try await api.user(id: 42) }
/// ```
///
/// RxSwift: `timeout(_:scheduler:)`; Combine: `timeout(_:scheduler:customError:)`.
///
/// At the deadline the operation's task is cancelled and the call throws at once, without
/// waiting for it to wind down; cancelling the caller does the same with `CancellationError`.
/// The operation runs in a task of its own, so its result must be `Sendable`.
///
/// - Parameters:
///   - duration: How long to wait, on `clock`; more than zero.
///   - tolerance: The clock's leeway for the deadline.
///   - clock: The clock to measure with; `ManualClock` (AsyncBridgeTesting) in tests.
///   - operation: The work to limit.
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
    // At the deadline the timeout leaves the run, whose task, with no other consumer, is cancelled.
    return try await SharedFuture(operation).timeout(duration, tolerance: tolerance, clock: clock).value
}
