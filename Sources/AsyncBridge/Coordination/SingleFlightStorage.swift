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

    /// A caller of `key` joins the flight in progress or starts one running `operation`; returns
    /// the flight's future and the caller's arrival. `inTask`: the caller awaits (and leaves if
    /// its task was cancelled while starting).
    ///
    /// The table's lock and a flight's own are never held together. A new flight's future is
    /// made with its starter arrived, so it is not idle before its run starts; a joiner that
    /// finds a flight idle removes it and tries again, since a flight is never restarted.
    @inlinable
    func arrive(
        _ key: Key,
        inTask: Bool,
        _ operation: @escaping Operation
    ) -> (SharedFuture<Value, Failure>, SharedFuture<Value, Failure>.Arrival) {
        while true {
            var unstarted: SharedFuture<Value, Failure>.UnstartedRun?
            let arrival = lock.withLock { machine in
                machine.arrive(key) { id in
                    let run = flightRun(key, id, operation)
                    unstarted = run
                    return run.future
                }
            }
            switch arrival {
            case .starting(let flight):
                guard let unstarted else { preconditionFailure("Internal inconsistency: a new flight without its run") }
                guard policy == .runToCompletion else { return (flight.future, unstarted.start(inTask: inTask)) }
                // The starter is the flight's keeper and never leaves, so nobody cancels the run;
                // the caller joins as a waiter of its own.
                guard let joined = flight.future.joinRunInProgress() else {
                    preconditionFailure("Internal inconsistency: a flight with its keeper was idle")
                }
                _ = unstarted.start(inTask: false)
                return (flight.future, joined)
            case .joining(let flight):
                if let joined = flight.future.joinRunInProgress() { return (flight.future, joined) }
                ended(key, flight.id)
            }
        }
    }

    /// The future of flight `id` of `key`, made with its starter arrived: one run of
    /// `operation` in a new task. The run leaves the table before it delivers its result; a
    /// flight that is cancelled when unused leaves it when its last waiter does (and its task
    /// is cancelled).
    @inlinable
    func flightRun(_ key: Key, _ id: UInt64, _ operation: @escaping Operation) -> SharedFuture<Value, Failure>.UnstartedRun {
        let cancelling = policy == .cancelWhenUnused
        return SharedFuture.unstartedRun(work: { [self] completer in
            let task = Task {
                let result = await Result(catching: operation)
                ended(key, id)
                completer.resolve(result)
            }
            guard cancelling else { return nil }
            return {
                task.cancel()
                ended(key, id)
            }
        })
    }

    /// Flight `id` of `key` ended (its run finished, or every waiter left it): it leaves the
    /// table, unless it has already.
    @inlinable
    func ended(_ key: Key, _ id: UInt64) {
        let removed = lock.withLock { $0.end(key, id) }
        withExtendedLifetime(removed) {}  // released here, unlocked
    }

    /// How many callers wait for `key`'s flight, not counting the keeper of a flight that runs
    /// to completion.
    func waiterCount(_ key: Key) -> Int {
        guard let future = lock.withLock({ $0.flights[key]?.future }) else { return 0 }
        let consumers = future.consumerCount
        return policy == .runToCompletion ? max(0, consumers - 1) : consumers
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
            future.listen(id, generation, handler)
            return (future, id)
        }
    }
}
