@_spi(AsyncBridgeInternals) import AsyncBridge

/// Collects the `Misuse` reports of the bridges created inside ``record(_:)``, so a test can
/// assert that a misbehaving API was noticed (debug builds only: release builds report
/// nothing).
///
/// ```swift
/// let recorder = MisuseRecorder()
/// let value = try await recorder.record {
///     try await withCompletion { completion in completion(.success(1)); completion(.success(2)) }
/// }
/// #expect(recorder.misuses == [.completionCalledMoreThanOnce])
/// ```
public final class MisuseRecorder: Sendable {
    private let reports = SharedLock([Misuse]())

    /// Creates a recorder that has seen nothing.
    ///
    /// ```swift
    /// let recorder = MisuseRecorder()
    /// ```
    public init() {}

    /// The misuses reported so far, in order.
    ///
    /// ```swift
    /// #expect(recorder.misuses.isEmpty)
    /// ```
    public var misuses: [Misuse] { reports.withLock { $0 } }

    /// Runs `operation` with this recorder bound as `AsyncBridgeDiagnostics.handler`.
    ///
    /// ```swift
    /// try await recorder.record { try await future.value }
    /// ```
    public func record<Result>(
        isolation: isolated (any Actor)? = #isolation,
        _ operation: () async throws -> Result
    ) async rethrows -> Result {
        try await AsyncBridgeDiagnostics.$handler.withValue({ [reports] misuse in
            reports.withLock { $0.append(misuse) }
        }, operation: operation, isolation: isolation)
    }

    /// Runs a synchronous `operation` with this recorder bound as the handler.
    ///
    /// ```swift
    /// let future = recorder.record { SharedFuture<Int, Never> { _ in } }
    /// ```
    public func record<Result>(_ operation: () throws -> Result) rethrows -> Result {
        try AsyncBridgeDiagnostics.$handler.withValue({ [reports] misuse in
            reports.withLock { $0.append(misuse) }
        }, operation: operation)
    }
}
