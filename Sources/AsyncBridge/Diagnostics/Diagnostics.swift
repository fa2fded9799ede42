#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Bionic)
import Bionic
#endif

/// A misuse of a bridge that AsyncBridge survives but reports in debug builds, as part of a
/// ``MisuseReport``.
///
/// ```swift
/// await AsyncBridgeDiagnostics.$handler.withValue({ report in print(report.misuse) }) {
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
    /// A completion block was released without ever being called. What its consumer got
    /// instead of hanging depends on the bridge (``MisuseReport/outcome``).
    case completionNeverCalled

    /// A sentence that says what happened.
    ///
    /// ```swift
    /// print(Misuse.completionCalledMoreThanOnce.description)
    /// ```
    public var description: String {
        switch self {
        case .completionCalledMoreThanOnce:
            return "a completion block was called more than once"
        case .completionNeverCalled:
            return "a completion block was released without being called"
        }
    }
}

/// One misuse as reported: what happened, which bridge saw it, where the user's code created
/// that bridge, and what AsyncBridge did about it.
///
/// Its description is the line debug builds print when no handler is bound:
///
/// ```swift
/// await AsyncBridgeDiagnostics.$handler.withValue({ report in
///     print(report)   // withCompletion at MyApp/UserAPI.swift:12: a completion block was called more than once; the later call was ignored
/// }) {
///     _ = try? await withCompletion { api.getUser(id: 42, completion: $0) }
/// }
/// ```
public struct MisuseReport: Sendable, Hashable, CustomStringConvertible {
    /// What happened.
    public let misuse: Misuse
    /// The bridge, as its call is spelled: `withCompletion`, `withValueCompletion`,
    /// `SharedFuture(_:)`, `SharedFuture.neverFailing(_:)`, `Flow(_:)`, `Flow.neverFailing(_:)`
    /// or `AuthorizationGate(request:)`.
    public let bridge: String
    /// The file of the call that created the bridge, as `#fileID` spells it (`MyApp/UserAPI.swift`).
    public let fileID: String
    /// The line of that call.
    public let line: Int
    /// What AsyncBridge did about it, as a sentence: "the later call was ignored", "the flow
    /// finished without a value: …".
    public let outcome: String

    /// `bridge at fileID:line: misuse; outcome`.
    ///
    /// ```swift
    /// print(report.description)
    /// ```
    public var description: String {
        "\(bridge) at \(fileID):\(line): \(misuse); \(outcome)"
    }
}

/// The one hook through which AsyncBridge reports misuse (``MisuseReport``).
///
/// Useful for finding callback APIs that break their contract. In debug builds a misuse is
/// passed to ``handler`` when one is bound for the task that created the bridge, and is
/// printed to standard error otherwise. Release builds are silent and pay nothing. The handler
/// is task-local, so tests running in parallel each observe only their own bridges:
///
/// ```swift
/// await AsyncBridgeDiagnostics.$handler.withValue({ report in log.append(report) }) {
///     _ = try? await withCompletion { api.getUser(id: 42, completion: $0) }
/// }
/// ```
///
/// > Note: The handler is captured when the bridge is created (a `SharedFuture`, a completion
/// > block handed to an API), not when the misuse happens, which is often on another thread.
public enum AsyncBridgeDiagnostics {
    /// The handler bound for the current task, or `nil` to print to standard error.
    ///
    /// ```swift
    /// await AsyncBridgeDiagnostics.$handler.withValue({ print("misuse:", $0) }) { await runTheCode() }
    /// ```
    @TaskLocal public static var handler: (@Sendable (MisuseReport) -> Void)?
}

/// The bridges a misuse report names; each says what its consumer gets when a completion block
/// is released without being called.
@usableFromInline
enum MisuseBridge: UInt8, Sendable {
    case withCompletion
    case withValueCompletion
    case sharedFuture
    case sharedFutureNeverFailing
    case flow
    case flowNeverFailing
    case authorizationGate
    /// A future that one of the library's operators made: its completer is the library's, so a
    /// report from it is a bug here, located in the library.
    case `operator`

    var spelling: String {
        switch self {
        case .withCompletion: "withCompletion"
        case .withValueCompletion: "withValueCompletion"
        case .sharedFuture: "SharedFuture(_:)"
        case .sharedFutureNeverFailing: "SharedFuture.neverFailing(_:)"
        case .flow: "Flow(_:)"
        case .flowNeverFailing: "Flow.neverFailing(_:)"
        case .authorizationGate: "AuthorizationGate(request:)"
        case .operator: "an AsyncBridge operator"
        }
    }

    /// What `misuse` did to this bridge's consumer, whose failure type is `Failure`.
    func outcome<Failure: Error>(of misuse: Misuse, failure: Failure.Type) -> String {
        let broken = "AsyncBridgeError.completionNeverCalled"
        switch (misuse, self) {
        case (.completionCalledMoreThanOnce, _):
            return "the later call was ignored"
        case (.completionNeverCalled, .withCompletion), (.completionNeverCalled, .withValueCompletion):
            return "the call threw \(broken)"
        case (.completionNeverCalled, .sharedFuture), (.completionNeverCalled, .sharedFutureNeverFailing),
             (.completionNeverCalled, .operator):
            return "the future's run ended with \(broken), which value and result throw"
        case (.completionNeverCalled, .flow), (.completionNeverCalled, .flowNeverFailing):
            // The rule of `Flow(_ future:)`.
            if (AsyncBridgeError.completionNeverCalled as any Error) is Failure {
                return "the flow failed with \(broken)"
            }
            return "the flow finished without a value: its Failure type, \(Failure.self), cannot carry \(broken)"
        case (.completionNeverCalled, .authorizationGate):
            return "the status read afterwards decided"
        }
    }
}

/// Where misuse of one bridge goes, captured when the bridge is created, and what the report
/// says of it: the bridge and the user's call site. Debug builds only: in release builds it is
/// empty, and the call-site arguments of the bridges go unused.
@usableFromInline
struct MisuseReporter: Sendable {
    #if DEBUG
    @usableFromInline let handler: (@Sendable (MisuseReport) -> Void)?
    @usableFromInline let bridge: MisuseBridge
    @usableFromInline let fileID: StaticString
    @usableFromInline let line: UInt

    @usableFromInline
    init(handler: (@Sendable (MisuseReport) -> Void)?, bridge: MisuseBridge, fileID: StaticString, line: UInt) {
        self.handler = handler
        self.bridge = bridge
        self.fileID = fileID
        self.line = line
    }
    #else
    @usableFromInline
    init() {}
    #endif

    /// Captures the task-local handler for `bridge`, created at `fileID:line` (debug builds only).
    @inlinable
    static func current(_ bridge: MisuseBridge, fileID: StaticString, line: UInt) -> MisuseReporter {
        #if DEBUG
        return MisuseReporter(handler: AsyncBridgeDiagnostics.handler, bridge: bridge, fileID: fileID, line: line)
        #else
        return MisuseReporter()
        #endif
    }

    /// Reports `misuse` of a bridge whose consumer fails with `Failure` (debug builds only).
    /// Call it outside any lock.
    @inlinable
    func report<Failure: Error>(_ misuse: Misuse, failure: Failure.Type) {
        #if DEBUG
        deliver(misuse, failure: failure)
        #endif
    }

    #if DEBUG
    @usableFromInline
    func deliver<Failure: Error>(_ misuse: Misuse, failure: Failure.Type) {
        let report = MisuseReport(
            misuse: misuse,
            bridge: bridge.spelling,
            fileID: fileID.description,
            line: Int(line),
            outcome: bridge.outcome(of: misuse, failure: failure)
        )
        if let handler {
            handler(report)
        } else {
            printToStandardError("AsyncBridge: \(report)")
        }
    }
    #endif
}

#if DEBUG
@usableFromInline
func printToStandardError(_ message: String) {
    var line = message + "\n"
    line.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
}
#endif
