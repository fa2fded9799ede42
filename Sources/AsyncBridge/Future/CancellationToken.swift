/// A handle that cancels a subscription or an operation, at most once.
///
/// Releasing a token does **not** cancel; call ``cancel()``, or store the token in a
/// ``CancellationBag`` that cancels it when its owner goes. This is RxSwift's choice for
/// `Disposable`, not Combine's (`AnyCancellable` cancels when released), because the same
/// token is handed back by completion-block bridges, where `api.load { … }` with its handle
/// ignored must keep running.
///
/// A dropped token is not a silent leak, though: `Flow`'s `subscribe` methods return it
/// without `@discardableResult`, so forgetting `.store(in: bag)` is a compiler warning (an
/// error under `-warnings-as-errors`), as RxSwift warns about an unused `Disposable`. Write
/// `_ = flow.subscribe { … }` for a subscription meant to live as long as its source.
/// `SharedFuture`'s `subscribe(deliveringOn:_:)` keeps `@discardableResult`: its subscription ends by itself
/// with the one result, and releases everything then.
///
/// ```swift
/// let token = future.subscribe(deliveringOn: .main) { result in render(result) }
/// token.cancel()   // the operation's cancel action runs; `render` gets CancellationError
///
/// flow.subscribe { event in print(event) }.store(in: bag)   // cancelled with the bag
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
    /// > Warning: A later call made while the first one is still running on another thread
    /// > returns at once, before that cancellation has reached the source: until it has, the
    /// > subscriber may still receive values. Nothing arrives after the first call returned
    /// > but an event already in flight.
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
