/// A handle that cancels a subscription or an operation, at most once.
///
/// Releasing a token does **not** cancel: a completion-block API called as
/// `api.load { … }` with its handle ignored must keep running. Call ``cancel()`` to cancel.
///
/// ```swift
/// let token = future.subscribe(on: .main) { result in render(result) }
/// token.cancel()   // the operation's cancel action runs; `render` gets CancellationError
/// ```
///
/// RxSwift: `Disposable`; Combine: `AnyCancellable` (which, unlike this token, cancels when
/// released).
public final class CancellationToken: Sendable, Hashable {
    @usableFromInline
    let action: Lock<CancelAction?>

    /// Creates a token that runs `action` the first time it is cancelled.
    ///
    /// ```swift
    /// let token = CancellationToken { task.cancel() }
    /// ```
    @inlinable
    public init(_ action: @escaping CancelAction) {
        self.action = .make(action)
    }

    /// Runs the cancel action if this is the first call; later calls do nothing.
    ///
    /// ```swift
    /// token.cancel()
    /// ```
    @inlinable
    public func cancel() {
        let pending = action.withLock { action -> CancelAction? in
            defer { action = nil }
            return action
        }
        pending?()
    }

    /// Whether ``cancel()`` has been called.
    ///
    /// ```swift
    /// if !token.isCancelled { token.cancel() }
    /// ```
    public var isCancelled: Bool {
        action.withLock { $0 == nil }
    }

    /// Tokens are equal only to themselves.
    ///
    /// ```swift
    /// var tokens: Set<CancellationToken> = [token]
    /// ```
    public static func == (lhs: CancellationToken, rhs: CancellationToken) -> Bool { lhs === rhs }

    /// Hashes the token's identity.
    ///
    /// ```swift
    /// let byToken: [CancellationToken: String] = [token: "profile request"]
    /// ```
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
