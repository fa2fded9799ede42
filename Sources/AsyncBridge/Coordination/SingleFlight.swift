/// Coalesces concurrent calls of the same operation: the callers of one key share one run.
///
/// The first caller of a key starts the operation in a new task; callers that come while it
/// is in flight wait for the same result; once it has finished, the next call starts a new run.
/// Nothing is remembered beyond the flight (for a result kept after it, use a ``SharedFuture``).
///
/// Useful for a token refresh that many requests discover at once, a cache miss that many
/// screens hit together, or a system prompt that must be shown once:
///
/// ```swift
/// let refresher = SingleFlight<String, Token, any Error>()
///
/// func validToken(refreshing refreshToken: String) async throws -> Token {
///     try await refresher.run(key: refreshToken) { try await api.refresh(refreshToken) }
/// }
/// ```
///
/// - **Cancellation.** A waiter whose task is cancelled throws `CancellationError` at once;
///   the others keep waiting. When the last waiter leaves, the run's task is cancelled
///   (``SingleFlightPolicy/cancelWhenUnused``, the default) or left to finish, later callers
///   joining it (``SingleFlightPolicy/runToCompletion``).
/// - **Failures** reach every waiter of the flight, typed through ``result(key:isolation:operation:)``.
/// - **Keys** isolate flights: different keys run concurrently. Use ``Unkeyed`` for one flight
///   at a time (`refresher.run { … }`).
/// - **Re-entrancy.** The operation may call `run` for *another* key. Calling it for its own key
///   waits for itself and never returns, as Go's `singleflight` does.
///
/// Go: `singleflight.Group`. In RxSwift or Combine this is written by hand: a shared request
/// (`share()`) kept in a property and cleared when it completes. The default policy does what
/// RxSwift's `share()` does when its last subscriber leaves (it disposes the source); the hand-
/// written `Task` in an actor that people write for async code does not cancel.
/// A `SingleFlight` is a value with shared state: copies coalesce with each other.
public struct SingleFlight<Key: Hashable & Sendable, Value: Sendable, Failure: Error>: Sendable {
    @usableFromInline
    let storage: SingleFlightStorage<Key, Value, Failure>

    /// Creates a single-flight with no flight in progress.
    ///
    /// ```swift
    /// let loader = SingleFlight<URL, Data, any Error>(policy: .runToCompletion)
    /// ```
    ///
    /// - Parameter policy: What happens to a run when its last waiter leaves (cancelled,
    ///   by default).
    public init(policy: SingleFlightPolicy = .cancelWhenUnused) {
        storage = SingleFlightStorage(policy: policy)
    }

    /// The policy this single-flight was made with.
    ///
    /// ```swift
    /// assert(refresher.policy == .cancelWhenUnused)
    /// ```
    public var policy: SingleFlightPolicy { storage.policy }

    /// Runs `operation` for `key`, or waits for the run of `key` in flight; returns its value.
    ///
    /// `operation` runs in a new task (not the caller's), so cancelling the caller does not
    /// cancel it directly: see ``SingleFlightPolicy``. Throws the operation's failure, or
    /// `CancellationError` when the calling task is cancelled first.
    ///
    /// ```swift
    /// let token = try await refresher.run(key: refreshToken) { try await api.refresh(refreshToken) }
    /// ```
    @inlinable
    public func run(
        key: Key,
        isolation: isolated (any Actor)? = #isolation,
        operation: @escaping @Sendable () async throws(Failure) -> Value
    ) async throws -> Value {
        guard let outcome = await outcome(key, operation, isolation: isolation) else { throw CancellationError() }
        return try outcome.get()
    }

    /// Runs `operation` for `key`, or waits for the run in flight; returns its result with the
    /// failure typed. Throws only `CancellationError`, when the calling task is cancelled first.
    ///
    /// ```swift
    /// switch try await loader.result(key: url) { () async throws(APIError) -> Data in try await api.data(url) } {
    /// case .success(let data): show(data)
    /// case .failure(let error): show(error)   // typed: APIError
    /// }
    /// ```
    @inlinable
    public func result(
        key: Key,
        isolation: isolated (any Actor)? = #isolation,
        operation: @escaping @Sendable () async throws(Failure) -> Value
    ) async throws(CancellationError) -> Result<Value, Failure> {
        switch await outcome(key, operation, isolation: isolation) {
        case .success(let value)?: return .success(value)
        case .failure(let error)?: return .failure(error)
        case .broken?: preconditionFailure("Internal inconsistency: a flight's task dropped its completion")
        case nil: throw CancellationError()
        }
    }

    /// A lazy `SharedFuture` of `key`'s flight: its first consumer joins the flight in progress or
    /// starts one. Like any `SharedFuture` it keeps its result once it has one, for its own
    /// consumers; the single-flight forgets it. When the future's last consumer leaves, it
    /// leaves the flight as one waiter.
    ///
    /// ```swift
    /// let token: SharedFuture<Token, any Error> = refresher.future(key: refreshToken) {
    ///     try await api.refresh(refreshToken)
    /// }
    /// ```
    public func future(
        key: Key,
        operation: @escaping @Sendable () async throws(Failure) -> Value
    ) -> SharedFuture<Value, Failure> {
        SharedFuture(work: { [storage] completer in
            let subscription = storage.subscribe(key, operation) { outcome in
                if let outcome { completer.complete(outcome) }  // `nil`: this future left the flight
            }
            guard case let (flight, id)? = subscription else { return nil }
            return { flight.remove(id) }
        })
    }

    /// A `Flow` of `key`'s flight: each subscription joins the flight in progress or starts
    /// one, receives its value then finished (or its failure), and leaves the flight as one
    /// waiter when cancelled. A subscription after the flight ended starts a new one.
    ///
    /// ```swift
    /// let token = refresher.flow(key: refreshToken) { try await api.refresh(refreshToken) }
    ///     .subscribe { event in print(event) }
    /// ```
    public func flow(
        key: Key,
        operation: @escaping @Sendable () async throws(Failure) -> Value
    ) -> Flow<Value, Failure> {
        .deferred { Flow(future(key: key, operation: operation)) }
    }

    /// How many callers wait for `key`'s flight (0 when none is in flight). For tests and
    /// benchmarks that must know every caller has joined before the run ends.
    ///
    /// ```swift
    /// while refresher.waiterCount(key: refreshToken) < 2 { await Task.yield() }
    /// ```
    @_spi(AsyncBridgeInternals)
    public func waiterCount(key: Key) -> Int {
        storage.waiterCount(key)
    }

    /// How many flights are in the table (in progress, or abandoned and about to leave it).
    ///
    /// ```swift
    /// #expect(refresher.flightCount == 0)
    /// ```
    @_spi(AsyncBridgeInternals)
    public var flightCount: Int {
        storage.lock.withLock { $0.flights.count }
    }

    /// Waits as one caller of `key`; `nil` means the calling task was cancelled.
    @inlinable
    func outcome(
        _ key: Key,
        _ operation: @escaping @Sendable () async throws(Failure) -> Value,
        isolation: isolated (any Actor)?
    ) async -> FutureOutcome<Value, Failure>? {
        let (future, arrival) = storage.arrive(key, inTask: true, operation)
        switch arrival {
        case .served(let outcome): return outcome
        case .waiting(let id, let generation): return await future.wait(id, generation, isolation: isolation)
        }
    }
}

/// What a ``SingleFlight`` does with a run when its last waiter leaves (its task is cancelled).
///
/// ```swift
/// let prompts = SingleFlight<Unkeyed, Bool, Never>(policy: .runToCompletion)
/// ```
public enum SingleFlightPolicy: Hashable, Sendable {
    /// Cancel the run's task; the next caller starts a new run. The default, as `SharedFuture` does.
    case cancelWhenUnused
    /// Let the run finish; callers that come meanwhile join it. For work that cannot be taken
    /// back (a system prompt on screen) or whose result is worth having anyway.
    case runToCompletion
}

/// The key of a ``SingleFlight`` whose callers all share one flight.
///
/// ```swift
/// let refresher = SingleFlight<Unkeyed, Token, any Error>()
/// let token = try await refresher.run { try await api.refreshSession() }
/// ```
public enum Unkeyed: Hashable, Sendable {
    /// The one key.
    case shared
}

extension SingleFlight where Key == Unkeyed {
    /// Runs `operation`, or waits for the run in flight; returns its value.
    ///
    /// ```swift
    /// let token = try await refresher.run { try await api.refreshSession() }
    /// ```
    @inlinable
    public func run(
        isolation: isolated (any Actor)? = #isolation,
        operation: @escaping @Sendable () async throws(Failure) -> Value
    ) async throws -> Value {
        try await run(key: .shared, isolation: isolation, operation: operation)
    }

    /// Runs `operation`, or waits for the run in flight; returns its result with the failure
    /// typed. Throws only `CancellationError`.
    ///
    /// ```swift
    /// let outcome: Result<Token, any Error> = try await refresher.result { try await api.refreshSession() }
    /// ```
    @inlinable
    public func result(
        isolation: isolated (any Actor)? = #isolation,
        operation: @escaping @Sendable () async throws(Failure) -> Value
    ) async throws(CancellationError) -> Result<Value, Failure> {
        try await result(key: .shared, isolation: isolation, operation: operation)
    }

    /// A lazy `SharedFuture` of the flight: see ``future(key:operation:)``.
    ///
    /// ```swift
    /// let token = refresher.future { try await api.refreshSession() }
    /// ```
    public func future(operation: @escaping @Sendable () async throws(Failure) -> Value) -> SharedFuture<Value, Failure> {
        future(key: .shared, operation: operation)
    }

    /// A `Flow` of the flight: see ``flow(key:operation:)``.
    ///
    /// ```swift
    /// let token = refresher.flow { try await api.refreshSession() }
    /// ```
    public func flow(operation: @escaping @Sendable () async throws(Failure) -> Value) -> Flow<Value, Failure> {
        flow(key: .shared, operation: operation)
    }
}
