/// An object that is not `Sendable`, kept on one actor: a `Sendable` handle to it that flows,
/// futures and single-flights may capture, while the object itself is only ever used on that
/// actor.
///
/// ```swift
/// let users = ActorConfined(UserAPI(), to: MainActor.shared)   // UserAPI: a legacy class
/// let user = Flow<User, APIError> { completion, onCancel in
///     onCancel(users.start { api in api.fetchUser(id: 42, completion: completion).cancel })
/// }
/// ```
///
/// RxSwift: `subscribe(on: MainScheduler.instance)` around `Observable.create`; Combine:
/// `subscribe(on: DispatchQueue.main)`.
///
/// Each ``start(_:)`` hops to the actor, and so does its cancel action; ``run(_:)`` hands over
/// a result in async code.
public final class ActorConfined<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is handed over at `init` and read only in `perform` and
    // `begin`, isolated to `actor`.

    /// The actor the value is used on.
    ///
    /// ```swift
    /// assert(users.actor === MainActor.shared)
    /// ```
    public let actor: any Actor
    let value: Value

    /// Confines `value` to `actor` (the main actor, or one of the app's); `value` is handed
    /// over (make it in the call) and from then on used only on `actor`.
    ///
    /// ```swift
    /// let users = ActorConfined(UserAPI(), to: MainActor.shared)
    /// ```
    public init(_ value: sending Value, to actor: any Actor) {
        self.value = value
        self.actor = actor
    }

    /// Runs `body` once with the value on ``actor`` and returns its result, which must be
    /// `Sendable`: the value never leaves its actor.
    ///
    /// ```swift
    /// let started = await users.run { api in api.requestCount }
    /// ```
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
    /// what the cancellable body of `Flow { … }`, `SharedFuture { … }` or `withCompletion { … }`
    /// gives its `onCancel`.
    ///
    /// ```swift
    /// let user = SharedFuture<User, APIError> { completion, onCancel in
    ///     onCancel(users.start { api in api.fetchUser(id: 42, completion: completion).cancel })
    /// }
    /// ```
    ///
    /// `operation` runs on ``actor`` soon after the call, never on the calling thread, and
    /// returns its cancel action, or `nil`. The returned action may be called from any thread,
    /// more than once: it runs that cancel action on ``actor`` once; called before `operation`
    /// ran, `operation` never runs. Calls from different threads reach the actor in any order.
    /// Write `return` in a one-line body, or Swift picks the form that cannot be cancelled.
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
    // @unchecked Sendable: after `init`, `state` and its closures are used only by
    // `ActorConfined.begin` and `cancel(on:)`, both isolated to the box's actor.

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
