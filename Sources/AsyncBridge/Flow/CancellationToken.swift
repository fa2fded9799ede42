/// A handle that cancels a subscription or an operation, at most once.
///
/// ```swift
/// flow.subscribe { event in print(event) }.store(in: bag)   // cancelled with the bag
/// ```
///
/// RxSwift: `Disposable`; Combine: `AnyCancellable` (which cancels when released).
///
/// Releasing a token does **not** cancel: call ``cancel()`` or store it in a
/// ``CancellationBag``. An unused token from `Flow.subscribe` is a compiler warning.
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
    /// For a `Flow` subscription, once any call returns the handlers get nothing more, except
    /// an event another thread was already delivering. A second call returns at once, possibly
    /// before the first has finished.
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
