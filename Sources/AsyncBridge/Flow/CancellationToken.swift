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
    /// What cancelling reaches: a flow subscription, or an action of the token's own.
    @usableFromInline
    enum Target: Sendable {
        case subscription(FlowSubscription)
        case action(ClosableSlot<CancelAction>)
    }

    /// The gate: ``cancelledBit`` once cancelled, ``endedBit`` once a flow subscription ended
    /// otherwise (completed, or its owner gone). A flow's sink reads it before every event.
    @usableFromInline let state = AtomicWord(0)
    @usableFromInline let target: Target
    #if DEBUG
    /// The thread delivering to the subscription at this moment (0 for none), and the
    /// `subscribe` method that made it: the debug check of one delivery at a time.
    @usableFromInline let deliverer = AtomicWord(0)
    @usableFromInline let method: StaticString
    #endif

    /// Creates a token that runs `action` the first time it is cancelled.
    ///
    /// ```swift
    /// let token = CancellationToken { task.cancel() }
    /// ```
    @inlinable
    public init(_ action: @escaping CancelAction) {
        target = .action(ClosableSlot(action))
        #if DEBUG
        method = "CancellationToken(_:)"
        #endif
    }

    /// The token of a flow subscription, made by `subscribe` (`method`).
    @inlinable
    init(subscription: FlowSubscription, method: StaticString) {
        target = .subscription(subscription)
        #if DEBUG
        self.method = method
        #endif
    }

    /// Cancels: runs the cancel action if this is the first call; later calls do nothing.
    ///
    /// For a `Flow` subscription, cancellation has taken effect when any call returns, on
    /// any thread: the handlers get nothing more, except an event another thread was already
    /// delivering. A second call made while the first is still reaching the source returns at
    /// once too, without waiting for it. For a token made with ``init(_:)``, a second call
    /// returns at once as well, possibly before the first has finished running the action.
    ///
    /// ```swift
    /// token.cancel()
    /// ```
    @inlinable
    public func cancel() {
        if state.setBits(Self.cancelledBit) & Self.cancelledBit != 0 { return }
        runTarget()
    }

    /// Whether ``cancel()`` has been called.
    ///
    /// ```swift
    /// if !token.isCancelled { token.cancel() }
    /// ```
    public var isCancelled: Bool {
        state.load() & Self.cancelledBit != 0
    }

    @inlinable
    func runTarget() {
        switch target {
        case .subscription(let subscription):
            subscription.cancel()
        case .action(let action):
            action.close()??()
        }
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
