extension Flow {
    /// Fails with ``TimeoutError`` when `duration` passes without an event: before the first
    /// value, or between two values.
    ///
    /// ```swift
    /// let readings = sensor.readings.timeout(.seconds(10), clock: clock)   // Flow<Reading, any Error>
    /// ```
    ///
    /// RxSwift: `timeout(_:scheduler:)`; Combine: `timeout(_:scheduler:)` (which finishes
    /// instead, unless given a `customError`).
    ///
    /// The clock starts at subscription and restarts at each value. At the deadline the upstream
    /// is cancelled; an event at or after the deadline counts as too late, whenever the timer's
    /// task runs. The failure type becomes `any Error`; to keep it typed, or to finish, use
    /// ``timeout(_:tolerance:clock:switchingTo:)``.
    ///
    /// - Parameters:
    ///   - duration: The longest wait for each event, on `clock`; more than zero.
    ///   - tolerance: The clock's leeway for each deadline.
    ///   - clock: The clock to measure with; `ManualClock` (AsyncBridgeTesting) in tests.
    @inlinable
    public func timeout<C: Clock>(
        _ duration: C.Duration,
        tolerance: C.Duration? = nil,
        clock: C = ContinuousClock()
    ) -> Flow<Element, any Error> {
        mapError { $0 as any Error }
            .timeout(duration, tolerance: tolerance, clock: clock, failingWith: TimeoutError())
    }

    /// Continues with `other` when `duration` passes without an event: before the first value,
    /// or between two values.
    ///
    /// ```swift
    /// let untilQuiet = typing.timeout(.seconds(30), clock: clock, switchingTo: .empty)
    /// ```
    ///
    /// RxSwift: `timeout(_:other:scheduler:)`; Combine: `timeout(_:scheduler:customError:)`.
    ///
    /// The same per-element limit as ``timeout(_:tolerance:clock:)``, with the failure type
    /// kept. At the deadline the upstream is cancelled and `other` is subscribed, with no limit.
    ///
    /// - Parameters:
    ///   - duration: The longest wait for each event, on `clock`; more than zero.
    ///   - tolerance: The clock's leeway for each deadline.
    ///   - clock: The clock to measure with; `ManualClock` (AsyncBridgeTesting) in tests.
    ///   - other: The flow that continues at the deadline.
    @inlinable
    public func timeout<C: Clock>(
        _ duration: C.Duration,
        tolerance: C.Duration? = nil,
        clock: C = ContinuousClock(),
        switchingTo other: Flow
    ) -> Flow {
        mapError { TimeoutOutcome.failure($0) }
            .timeout(duration, tolerance: tolerance, clock: clock, failingWith: .timedOut)
            .catch { outcome in
                switch outcome {
                case .failure(let error): return .fail(error)
                case .timedOut: return other
                }
            }
    }

    /// The operator behind both `timeout`s: fails with `error` at the deadline.
    @inlinable
    func timeout<C: Clock>(
        _ duration: C.Duration,
        tolerance: C.Duration?,
        clock: C,
        failingWith error: Failure
    ) -> Flow where Failure: Sendable {
        checkDuration(duration, of: "timeout(_:)", allowingZero: false)
        checkTolerance(tolerance, of: "timeout(_:)")
        let upstream = self
        return Flow { subscriber in
            // The instant by which the next event must come; read and written by the handler only.
            let deadline = SerialState(clock.now.advanced(by: duration))
            let timed = TimedOperator(downstream: subscriber, clock: clock, tolerance: tolerance) { timed, input, now in
                guard now < deadline.value else { return timed.end(.failure(error)) }
                switch input {
                case .value(let value):
                    guard timed.send(value) else { return }
                    deadline.value = now.advanced(by: duration)
                    timed.arm(deadline.value)
                case .completion(let completion):
                    timed.end(completion)
                case .tick:
                    timed.arm(deadline.value)
                }
            }
            timed.subscribe(to: upstream)
            timed.tick()  // arms the first deadline, unless the upstream has completed
        }
    }
}

/// The failure of a timed-out flow on its way to `timeout(_:tolerance:clock:switchingTo:)`'s
/// `catch`: the upstream's, or the timeout.
@usableFromInline
enum TimeoutOutcome<Failure: Error>: Error {
    case failure(Failure)
    case timedOut
}
