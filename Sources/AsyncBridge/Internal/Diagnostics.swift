#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Bionic)
import Bionic
#endif

/// A misuse of a bridge that AsyncBridge survives but reports in debug builds.
///
/// ```swift
/// await AsyncBridgeDiagnostics.$handler.withValue({ misuse in print(misuse) }) {
///     _ = try? await withCompletion { (completion: @escaping @Sendable (Result<Int, Never>) -> Void) in
///         completion(.success(1))
///         completion(.success(2))   // ignored; prints completionCalledMoreThanOnce
///     }
/// }
/// ```
public enum Misuse: Sendable, Hashable, CustomStringConvertible {
    /// A completion block was called again after it had already delivered a result.
    /// The later call was ignored.
    case completionCalledMoreThanOnce
    /// A completion block was released without ever being called. The waiting consumer got
    /// ``AsyncBridgeError/completionNeverCalled`` instead of hanging.
    case completionNeverCalled

    /// A sentence that says what happened and what AsyncBridge did about it.
    ///
    /// ```swift
    /// print(Misuse.completionCalledMoreThanOnce.description)
    /// ```
    public var description: String {
        switch self {
        case .completionCalledMoreThanOnce:
            return "a completion block was called more than once; the later call was ignored"
        case .completionNeverCalled:
            return "a completion block was released without being called; its consumer got AsyncBridgeError.completionNeverCalled"
        }
    }
}

/// The one hook through which AsyncBridge reports misuse (``Misuse``).
///
/// Useful for finding callback APIs that break their contract. In debug builds a misuse is
/// passed to ``handler`` when one is bound for the task that created the bridge, and is
/// printed to standard error otherwise. Release builds are silent and pay nothing.
///
/// The handler is task-local, so tests running in parallel each observe only their own
/// bridges:
///
/// ```swift
/// await AsyncBridgeDiagnostics.$handler.withValue({ misuse in log.append(misuse) }) {
///     _ = try? await withCompletion { api.getUser(id: 42, completion: $0) }
/// }
/// ```
///
/// > Note: The handler is captured when the bridge is created (a `SharedFuture`, a completion
/// > block handed to an API), not when the misuse happens, because a misbehaving callback
/// > usually runs on a thread of its own.
public enum AsyncBridgeDiagnostics {
    /// The handler bound for the current task, or `nil` to print to standard error.
    ///
    /// ```swift
    /// await AsyncBridgeDiagnostics.$handler.withValue({ print("misuse:", $0) }) { await runTheCode() }
    /// ```
    @TaskLocal public static var handler: (@Sendable (Misuse) -> Void)?
}

/// Where misuse of one bridge goes: captured when the bridge is created.
@usableFromInline
struct MisuseReporter: Sendable {
    #if DEBUG
    @usableFromInline let handler: (@Sendable (Misuse) -> Void)?

    @usableFromInline
    init(handler: (@Sendable (Misuse) -> Void)?) {
        self.handler = handler
    }
    #else
    @usableFromInline
    init() {}
    #endif

    /// Captures the task-local handler (debug builds only).
    @inlinable
    static var current: MisuseReporter {
        #if DEBUG
        return MisuseReporter(handler: AsyncBridgeDiagnostics.handler)
        #else
        return MisuseReporter()
        #endif
    }

    /// Reports `misuse` (debug builds only). Call it outside any lock.
    @inlinable
    func report(_ misuse: Misuse) {
        #if DEBUG
        if let handler {
            handler(misuse)
        } else {
            printToStandardError("AsyncBridge: \(misuse.description)")
        }
        #endif
    }
}

#if DEBUG
@usableFromInline
func printToStandardError(_ message: String) {
    var line = message + "\n"
    line.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
}
#endif
