/// The lock-protected table of a ``SingleFlight`` and the flights' operations. It decides under
/// the lock and acts after it: runs start, waiters resume and cancel actions run unlocked.
@usableFromInline
struct SingleFlightStorage<Key: Hashable & Sendable, Value: Sendable, Failure: Error>: Sendable {
    @usableFromInline typealias Machine = SingleFlightStateMachine<Key, Value, Failure>
    @usableFromInline typealias Operation = @Sendable () async throws(Failure) -> Value

    @usableFromInline let lock: Lock<Machine>
    @usableFromInline let policy: SingleFlightPolicy

    @inlinable
    init(policy: SingleFlightPolicy) {
        lock = .make(Machine())
        self.policy = policy
    }

    /// A caller of `key` arrives: it joins the flight in progress or starts one running
    /// `operation`. Returns the flight's future and how the caller's arrival at it went;
    /// `inTask`: the caller awaits (and leaves if its task was cancelled while starting).
    @inlinable
    func arrive(
        _ key: Key,
        inTask: Bool,
        _ operation: @escaping Operation
    ) -> (SharedFuture<Value, Failure>, SharedFuture<Value, Failure>.Arrival) {
        var start: FutureOperation<Value, Failure>?
        var keeper: FutureStateMachine<Value, Failure>.Arrival?
        let (future, arrival) = lock.withLock { machine in
            let flight: Machine.Flight
            switch machine.arrive(key, make: { id in flightFuture(key, id, operation) }) {
            case .joining(let joined):
                flight = joined
            case .starting(let started):
                flight = started
                // A flight that runs to completion keeps a consumer of its own, which never
                // leaves: the future is never abandoned, so nobody cancels or restarts it.
                if policy == .runToCompletion {
                    keeper = flight.future.storage.withLock { $0.arrive(operation: &start) }
                }
            }
            return (flight.future, flight.future.storage.withLock { $0.arrive(operation: &start) })
        }
        if case .starting(let id, let generation)? = keeper {
            _ = future.run(id, generation, start, inTask: false)
        }
        switch arrival {
        case .joining(let id, let generation):
            return (future, .waiting(id: id, generation: generation))
        case .starting(let id, let generation):
            return (future, future.run(id, generation, start, inTask: inTask))
        case .finished:
            preconditionFailure("Internal inconsistency: a finished flight was still in the table")
        }
    }

    /// The future of flight `id` of `key`: one run of `operation` in a new task. The run
    /// leaves the table before it delivers its result; a flight that is cancelled when unused
    /// leaves it when its last waiter does (and its task is cancelled).
    @inlinable
    func flightFuture(_ key: Key, _ id: UInt64, _ operation: @escaping Operation) -> SharedFuture<Value, Failure> {
        let cancelling = policy == .cancelWhenUnused
        return SharedFuture(work: { [self] completer in
            let generation = completer.generation
            let task = Task {
                let result = await Result(catching: operation)
                finished(key, id, generation)
                completer.resolve(result)
            }
            guard cancelling else { return nil }
            return {
                task.cancel()
                abandoned(key, id)
            }
        })
    }

    /// Run `generation` of flight `id` finished: the flight leaves the table, unless that run
    /// had been abandoned (and perhaps the flight started again since).
    @inlinable
    func finished(_ key: Key, _ id: UInt64, _ generation: UInt64) {
        let removed = lock.withLock { machine in
            machine.remove(key, id) { future in
                future.storage.withLock { state in
                    if case .running(generation, _, _) = state.state { return true }
                    return false
                }
            }
        }
        withExtendedLifetime(removed) {}  // released here, unlocked
    }

    /// Every waiter left flight `id`: it leaves the table, unless a caller has joined (and so
    /// restarted) its future since.
    @inlinable
    func abandoned(_ key: Key, _ id: UInt64) {
        let removed = lock.withLock { machine in
            machine.remove(key, id) { future in
                future.storage.withLock { state in
                    if case .idle = state.state { return true }
                    return false
                }
            }
        }
        withExtendedLifetime(removed) {}  // released here, unlocked
    }

    /// How many callers wait for `key`'s flight, not counting the keeper of a flight that runs
    /// to completion.
    func waiterCount(_ key: Key) -> Int {
        lock.withLock { machine in
            guard let flight = machine.flights[key] else { return 0 }
            let consumers = flight.future.storage.withLock { state -> Int in
                guard case .running(_, _, let consumers) = state.state else { return 0 }
                switch consumers {
                case .one: return 1
                case .many(let all): return all.count
                }
            }
            return policy == .runToCompletion ? max(0, consumers - 1) : consumers
        }
    }

    /// Registers `handler` as a waiter of `key`'s flight, starting one if needed. Returns the
    /// flight's future and the waiter's id for `remove`, or `nil` when `handler` was called at
    /// once.
    @inlinable
    func subscribe(
        _ key: Key,
        _ operation: @escaping Operation,
        _ handler: @escaping @Sendable (FutureOutcome<Value, Failure>?) -> Void
    ) -> (SharedFuture<Value, Failure>, UInt64)? {
        let (future, arrival) = arrive(key, inTask: false, operation)
        switch arrival {
        case .served(let outcome):
            handler(outcome)
            return nil
        case .waiting(let id, let generation):
            let installation = future.storage.withLock { $0.install(id, generation, .handler(handler)) }
            if case .deliver(let outcome) = installation { handler(outcome) }
            return (future, id)
        }
    }
}
