@_spi(AsyncBridgeInternals) import AsyncBridge

/// Collects the misuse reports of the bridges created inside ``record(_:)``, so a test can
/// assert that a misbehaving API was noticed, and where (debug builds only: release builds
/// report nothing).
///
/// ```swift
/// let recorder = MisuseRecorder()
/// let value = try await recorder.record {
///     try await withCompletion { completion in completion(.success(1)); completion(.success(2)) }
/// }
/// #expect(recorder.misuses == [.completionCalledMoreThanOnce])
/// #expect(recorder.reports.first?.bridge == "withCompletion")
/// ```
public final class MisuseRecorder: Sendable {
    private let recorded = SharedLock([MisuseReport]())

    /// Creates a recorder that has seen nothing.
    ///
    /// ```swift
    /// let recorder = MisuseRecorder()
    /// ```
    public init() {}

    /// What the misuses reported so far were, in order.
    ///
    /// ```swift
    /// #expect(recorder.misuses.isEmpty)
    /// ```
    public var misuses: [Misuse] { recorded.withLock { $0.map(\.misuse) } }

    /// The reports so far, in order: each misuse with its bridge, the call site that created
    /// the bridge and what the bridge did about it.
    ///
    /// ```swift
    /// #expect(recorder.reports.map(\.line) == [line])
    /// ```
    public var reports: [MisuseReport] { recorded.withLock { $0 } }

    /// Runs `operation` with this recorder bound as `AsyncBridgeDiagnostics.handler`.
    ///
    /// ```swift
    /// try await recorder.record { try await future.value }
    /// ```
    public func record<Result>(
        isolation: isolated (any Actor)? = #isolation,
        _ operation: () async throws -> Result
    ) async rethrows -> Result {
        try await AsyncBridgeDiagnostics.$handler.withValue({ [recorded] report in
            recorded.withLock { $0.append(report) }
        }, operation: operation, isolation: isolation)
    }

    /// Runs a synchronous `operation` with this recorder bound as the handler.
    ///
    /// ```swift
    /// let future = recorder.record { SharedFuture<Int, Never> { _ in } }
    /// ```
    public func record<Result>(_ operation: () throws -> Result) rethrows -> Result {
        try AsyncBridgeDiagnostics.$handler.withValue({ [recorded] report in
            recorded.withLock { $0.append(report) }
        }, operation: operation)
    }
}
