extension SharedFuture {
    /// A future that fails with ``TimeoutError`` if this one has not finished `duration` after
    /// its run started.
    ///
    /// Lazy like the other operators: the clock starts when the returned future's first
    /// consumer arrives. At the deadline this future's run is left (and cancelled, if nobody
    /// else waits for it) and the returned future fails at once, without waiting for the
    /// operation to wind down. Its outcome is memoised like any future's, the timeout
    /// included; build a new one for a new attempt (``retrying(_:maxAttempts:clock:shouldRetry:_:)``
    /// does, on each attempt).
    ///
    /// ```swift
    /// let user = SharedFuture { api.getUser(id: 42, completion: $0) }
    ///     .timeout(.seconds(5), clock: clock)   // SharedFuture<User, any Error>
    /// ```
    ///
    /// The failure type becomes `any Error`: this future's `Failure` or ``TimeoutError``. To
    /// keep it typed, use ``timeout(_:tolerance:clock:customError:)``.
    ///
    /// RxSwift: `Single.timeout(_:scheduler:)` (fails with `RxError.timeout`); Combine:
    /// `timeout(_:scheduler:customError:)`, which *finishes* without a value unless given an
    /// error. A future cannot finish without a value, so it fails.
    ///
    /// - Parameters:
    ///   - duration: How long to wait, on `clock`; more than zero (zero or negative: a
    ///     precondition failure, README, "Durations and counts").
    ///   - tolerance: The clock's leeway for the deadline.
    ///   - clock: The clock to measure with; `ManualClock` (AsyncBridgeTesting) in tests.
    @inlinable
    public func timeout<C: Clock>(
        _ duration: C.Duration,
        tolerance: C.Duration? = nil,
        clock: C = ContinuousClock()
    ) -> SharedFuture<Success, any Error> {
        timeout(duration, tolerance: tolerance, clock: clock, mapFailure: { $0 }, timedOut: { TimeoutError() })
    }

    /// A future that fails with `customError()` if this one has not finished `duration` after
    /// its run started; the failure type stays typed.
    ///
    /// ```swift
    /// let user: SharedFuture<User, APIError> = request.timeout(.seconds(5), clock: clock) { .timedOut }
    /// ```
    ///
    /// Otherwise the same as ``timeout(_:tolerance:clock:)``. Combine:
    /// `timeout(_:scheduler:customError:)`.
    ///
    /// - Parameters:
    ///   - duration: How long to wait, on `clock`; more than zero (zero or negative: a
    ///     precondition failure, README, "Durations and counts").
    ///   - tolerance: The clock's leeway for the deadline.
    ///   - clock: The clock to measure with; `ManualClock` (AsyncBridgeTesting) in tests.
    ///   - customError: The failure at the deadline.
    @inlinable
    public func timeout<C: Clock>(
        _ duration: C.Duration,
        tolerance: C.Duration? = nil,
        clock: C = ContinuousClock(),
        customError: @escaping @Sendable () -> Failure
    ) -> SharedFuture {
        timeout(duration, tolerance: tolerance, clock: clock, mapFailure: { $0 }, timedOut: customError)
    }

    /// Both `timeout`s: this future's outcome (its failure mapped), or `timedOut()` at the
    /// deadline, whichever comes first.
    @usableFromInline
    func timeout<C: Clock, NewFailure: Error>(
        _ duration: C.Duration,
        tolerance: C.Duration?,
        clock: C,
        mapFailure: @escaping @Sendable (Failure) -> NewFailure,
        timedOut: @escaping @Sendable () -> NewFailure
    ) -> SharedFuture<Success, NewFailure> {
        checkDuration(duration, of: "timeout(_:)", allowingZero: false)
        checkTolerance(tolerance, of: "timeout(_:)")
        let upstream = self
        return SharedFuture<Success, NewFailure>(work: { completer in
            let race = FutureTimeoutRace()
            let deadline = clock.now.advanced(by: duration)
            let id = upstream.subscribe { outcome in
                guard let outcome, let timer = race.finish() else { return }  // left, or timed out
                timer?.cancel()
                switch outcome {
                case .success(let value): completer.complete(.success(value))
                case .failure(let error): completer.complete(.failure(mapFailure(error)))
                case .broken(let error): completer.complete(.broken(error))
                }
            }
            guard let id else { return nil }  // finished during the subscribe
            let timer = Task {
                do {
                    try await clock.sleep(until: deadline, tolerance: tolerance)
                } catch {
                    return  // cancelled: the run is over
                }
                guard race.finish() != nil else { return }
                upstream.remove(id)
                completer.complete(.failure(timedOut()))
            }
            if !race.started(timer) { timer.cancel() }
            return {
                guard let timer = race.finish() else { return }
                timer?.cancel()
                upstream.remove(id)
            }
        })
    }
}

/// Which of a timed-out future's upstream outcome, timer and cancellation came first.
@usableFromInline
final class FutureTimeoutRace: Sendable {
    /// `nil` once the race is over; the timer task once it exists.
    let state = Lock<Task<Void, Never>??>.make(.some(nil))

    @usableFromInline
    init() {}

    /// Records the timer task; `false` if the race is already over (the caller cancels it).
    @usableFromInline
    func started(_ timer: Task<Void, Never>) -> Bool {
        state.withLock { slot in
            guard slot != nil else { return false }
            slot = .some(timer)
            return true
        }
    }

    /// Ends the race: returns the timer slot (the task, or `nil` if not started yet) to the
    /// first caller, and `nil` to the others.
    @usableFromInline
    func finish() -> Task<Void, Never>?? {
        state.withLock { slot in
            defer { slot = nil }
            return slot
        }
    }
}
