/// Runs `operation`, and runs it again after a failure, waiting as `backoff` says, until it
/// succeeds, `maxAttempts` attempts have failed, or `shouldRetry` turns an error down.
///
/// ```swift
/// let user = try await withRetry(.exponential(initial: .milliseconds(100)), maxAttempts: 4) {
///     try await api.loadUser(id: 42)
/// }
/// ```
///
/// RxSwift: `retry(_:)` (same count); Combine: `retry(_:)` (which counts retries, not attempts).
///
/// The error that ends the retries is thrown; `shouldRetry` sees it typed. Cancelling the task
/// ends the wait between attempts at once and throws `CancellationError`. The operation runs in
/// the caller's task and isolation, so it need not be `Sendable`.
///
/// - Parameters:
///   - backoff: How long to wait before each retry; `.immediate` by default.
///   - maxAttempts: How many times to run the operation at most, the first time included; at
///     least 1.
///   - clock: The clock to wait on; `ManualClock` (AsyncBridgeTesting) in tests.
///   - shouldRetry: Whether an error is worth another attempt; by default every error is.
///   - isolation: The actor the operation runs on: the caller's, by default.
///   - operation: The work to run.
public func withRetry<Success, Failure: Error, C: Clock>(
    _ backoff: Backoff = .immediate,
    maxAttempts: Int,
    clock: C = ContinuousClock(),
    shouldRetry: (Failure) -> Bool = { _ in true },
    isolation: isolated (any Actor)? = #isolation,
    operation: () async throws(Failure) -> Success
) async throws -> Success where C.Duration == Duration {
    checkCount(maxAttempts, of: "withRetry(_:maxAttempts:)", named: "maxAttempts", atLeast: 1)
    var attempt = 1
    while true {
        let error: Failure
        do {
            return try await operation()
        } catch let failure {
            error = failure
        }
        try Task.checkCancellation()
        guard attempt < maxAttempts, shouldRetry(error) else { throw error }
        let delay = backoff.delay(beforeRetry: attempt)
        if delay > .zero {
            try await clock.sleep(until: clock.now.advanced(by: delay), tolerance: nil)
        }
        attempt += 1
    }
}
