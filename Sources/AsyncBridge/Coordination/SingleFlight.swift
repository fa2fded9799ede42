/// Coalesces concurrent calls of the same operation: the callers of one key share one run.
///
/// ```swift
/// let token = try await refresher.run(key: refreshToken) { try await api.refresh(refreshToken) }
/// ```
///
/// Go: `singleflight.Group`; RxSwift and Combine: none (a `share()`d request kept in a property).
///
/// The first caller of a key starts the operation in a new task; callers that come meanwhile
/// wait for its result; nothing is kept after the flight. A cancelled waiter throws
/// `CancellationError` at once; when the last one leaves, the ``SingleFlightPolicy`` decides.
/// Different keys run concurrently. Calling `run` for its own key from the operation never
/// returns. Copies share their flights.
public struct SingleFlight<Key: Hashable & Sendable, Value: Sendable, Failure: Error>: Sendable {
    @usableFromInline
    let storage: SingleFlightStorage<Key, Value, Failure>

    /// Creates a single-flight with no flight in progress; `policy` says what happens to a run
    /// when its last waiter leaves.
    ///
    /// ```swift
    /// let loader = SingleFlight<URL, Data, any Error>(policy: .runToCompletion)
    /// ```
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
    /// `operation` runs in a new task; cancelling the caller leaves it to the
    /// ``SingleFlightPolicy``. Throws the operation's failure, or `CancellationError`.
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
    /// let data = try await loader.result(key: url) { () async throws(APIError) -> Data in try await api.data(url) }
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

    /// A lazy `SharedFuture` of `key`'s flight: its first consumer joins or starts the flight;
    /// it keeps its result, and leaves the flight as one waiter when its last consumer leaves.
    ///
    /// ```swift
    /// let token = refresher.future(key: refreshToken) { try await api.refresh(refreshToken) }
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

    /// A `Flow` of `key`'s flight: each subscription joins or starts the flight, receives its
    /// value then finished (or its failure), and leaves as one waiter when cancelled.
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
