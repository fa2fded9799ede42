extension SharedFuture {
    /// A future that fails with ``TimeoutError`` if this one has not finished `duration` after
    /// its run started.
    ///
    /// ```swift
    /// let user = SharedFuture { api.getUser(id: 42, completion: $0) }.timeout(.seconds(5), clock: clock)
    /// ```
    ///
    /// RxSwift: `Single.timeout(_:scheduler:)`; Combine: `timeout(_:scheduler:customError:)`.
    ///
    /// The clock starts with the first consumer. At the deadline this future's run is left (and
    /// cancelled if nobody else waits) and the result fails at once; the timeout is memoised
    /// like any outcome. The failure type becomes `any Error`; to keep it typed, use
    /// ``timeout(_:tolerance:clock:customError:)``.
    ///
    /// - Parameters:
    ///   - duration: How long to wait, on `clock`; more than zero.
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
    /// RxSwift: `Single.timeout(_:scheduler:)`; Combine: `timeout(_:scheduler:customError:)`.
    ///
    /// Otherwise the same as ``timeout(_:tolerance:clock:)``, parameters included.
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
            // Outcome, timer and cancellation race: the first to close the slot (which holds
            // the timer task once it exists) wins.
            let race = ClosableSlot<Task<Void, Never>>()
            let deadline = clock.now.advanced(by: duration)
            let id = upstream.subscribe { outcome in
                guard let outcome, let timer = race.close() else { return }  // left, or timed out
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
                guard race.close() != nil else { return }
                upstream.remove(id)
                completer.complete(.failure(timedOut()))
            }
            if race.fill(timer) == nil { timer.cancel() }  // the race is over already
            return {
                guard let timer = race.close() else { return }
                timer?.cancel()
                upstream.remove(id)
            }
        })
    }
}
