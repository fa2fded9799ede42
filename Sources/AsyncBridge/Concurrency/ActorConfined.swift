/// An object that is not `Sendable`, kept on one actor: a `Sendable` handle to it that flows,
/// futures and single-flights may capture, while the object itself is only ever used on that
/// actor.
///
/// Useful for a class from a module written before Swift concurrency (a networking layer with
/// completion blocks, mutable counters and no lock): the body of a `Flow { … }` or
/// `SharedFuture { … }` runs on whichever thread subscribes, and its cancel action on whichever
/// thread cancels, so it cannot capture such an object, and `@preconcurrency import` would only
/// hide that race. Confine the object to the actor the app uses it on, once, where it is made;
/// every call then hops there to start, and its cancel action hops there too:
///
/// ```swift
/// let users = ActorConfined(UserAPI(), to: MainActor.shared)   // UserAPI: a legacy class
///
/// func user(id: Int) -> Flow<User, APIError> {
///     Flow { completion in
///         return users.start { api in api.fetchUser(id: id, completion: completion).cancel }
///     }
/// }
/// ```
///
/// In async code, ``run(_:)`` hands over a result. Code already on the object's actor does not
/// need the box for `withCompletion`, whose body and cancel action run on the caller's actor.
///
/// RxSwift: `subscribe(on: MainScheduler.instance)` around `Observable.create`, with a
/// disposable that must be disposed on the main thread, a rule only a comment could state;
/// Combine: `subscribe(on: DispatchQueue.main)`, the same. Here the rule is the type.
/// swift-concurrency-extras' `UncheckedSendable` instead lets any thread use the object.
public final class ActorConfined<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is read only inside `perform` and `begin` below, whose
    // `isolated` parameter is `actor`, so only while `actor`'s executor runs; it was handed
    // over (`sending`) at `init`, so nothing outside holds it.

    /// The actor the value is used on.
    ///
    /// ```swift
    /// assert(users.actor === MainActor.shared)
    /// ```
    public let actor: any Actor
    let value: Value

    /// Confines `value` to `actor`. `value` is handed over: the caller keeps no other reference
    /// to use it (make it in the call, as in `ActorConfined(UserAPI(), to: MainActor.shared)`).
    ///
    /// ```swift
    /// let users = ActorConfined(UserAPI(), to: MainActor.shared)
    /// ```
    ///
    /// - Parameters:
    ///   - value: The object; from now on it is used only on `actor`.
    ///   - actor: Where it lives: the main actor for what the app's UI layer owns, or an actor
    ///     of the app's.
    public init(_ value: sending Value, to actor: any Actor) {
        self.value = value
        self.actor = actor
    }

    /// Runs `body` with the value on the value's actor and returns its result.
    ///
    /// ```swift
    /// let started = await users.run { api in api.requestCount }
    /// ```
    ///
    /// - Parameter body: Runs once, on ``actor``.
    /// - Returns: What `body` returns, which must be `Sendable`: the value never leaves its actor.
    public func run<Success: Sendable, Failure: Error>(
        _ body: sending (Value) throws(Failure) -> Success
    ) async throws(Failure) -> Success {
        try await Self.perform(on: actor, self, body)
    }

    private static func perform<Success: Sendable, Failure: Error>(
        on actor: isolated any Actor,
        _ box: ActorConfined,
        _ body: sending (Value) throws(Failure) -> Success
    ) throws(Failure) -> Success {
        try body(box.value)
    }

    /// Starts an operation on the value's actor and returns the action that cancels it there:
    /// the cancellable body of `Flow { … }`, `SharedFuture { … }` or `withCompletion { … }`.
    ///
    /// `operation` runs on ``actor`` soon after the call (it never runs on the calling
    /// thread), and returns how to cancel what it started, if it can be cancelled: a request
    /// handle's method (`handle.cancel`), which need not be `Sendable`. The returned action hops
    /// to ``actor`` and runs it there once; cancelling before `operation` ran means it never
    /// runs. Each call hops on its own: calls made on different threads reach the actor in any
    /// order.
    ///
    /// Write `return` before it in a one-line body: without it, Swift reads the body as the form
    /// that cannot be cancelled, and rejects the call ("function is unused").
    ///
    /// ```swift
    /// let user = SharedFuture<User, APIError> { completion in
    ///     return users.start { api in api.fetchUser(id: 42, completion: completion).cancel }
    /// }
    /// ```
    ///
    /// - Parameter operation: Starts the work with the value, on ``actor``; returns its cancel
    ///   action, or `nil`.
    /// - Returns: An action that cancels the work on ``actor``; it may be called from any thread,
    ///   more than once.
    public func start(_ operation: sending @escaping (Value) -> (() -> Void)?) -> CancelAction {
        let call = ConfinedCall<Value>(operation)
        Task { [actor] in await Self.begin(on: actor, self, call) }
        return { [actor] in Task { await call.cancel(on: actor) } }
    }

    private static func begin(on actor: isolated any Actor, _ box: ActorConfined, _ call: ConfinedCall<Value>) {
        guard case .waiting(let operation) = call.state else { return }  // cancelled before it started
        call.state = .started(operation(box.value))
    }
}

/// One ``ActorConfined/start(_:)`` call: waiting to start, started, or cancelled.
final class ConfinedCall<Value>: @unchecked Sendable {
    // @unchecked Sendable: `state` is set at `init`, before the task that starts the call is
    // made, and from then on read and written only by `ActorConfined.begin` and `cancel(on:)`,
    // both isolated to the box's actor: never by two threads at once. The closures it holds
    // are called only there.

    enum State {
        /// The operation, handed over at `init`, has not run.
        case waiting((Value) -> (() -> Void)?)
        /// The operation ran and returned this cancel action.
        case started((() -> Void)?)
        case cancelled
    }

    var state: State

    init(_ operation: sending @escaping (Value) -> (() -> Void)?) {
        state = .waiting(operation)
    }

    func cancel(on actor: isolated any Actor) {
        let state = self.state
        self.state = .cancelled
        if case .started(let cancel?) = state { cancel() }
    }
}
