extension Flow where Element: Sendable {
    /// Sends each value `duration` after it arrived, and the finish `duration` after it came;
    /// a failure passes at once.
    ///
    /// ```swift
    /// let toast = messages.delay(for: .seconds(2), clock: clock)
    /// ```
    ///
    /// The spacing between values is kept. Delayed events are sent from the timer's task, one
    /// task per subscription that sleeps until the next due event (not a task per value).
    ///
    /// RxSwift and Combine disagree on failures. RxSwift's `delay(_:scheduler:)` delays values
    /// and the completion but sends an error at once, dropping the values still waiting;
    /// Combine's `delay(for:scheduler:)` delays everything, failures too. We follow RxSwift: a
    /// failure is news to act on now, and the values behind it were going to be cut short
    /// anyway. Cancelling drops the waiting events and ends the timer's task.
    ///
    /// - Parameters:
    ///   - duration: How long to hold each event, on `clock`. Zero holds none: the events go
    ///     out, in order, as soon as the timer's task runs. Negative: a precondition failure
    ///     (README, "Durations and counts").
    ///   - tolerance: The clock's leeway for each deadline.
    ///   - clock: The clock to measure with; `ManualClock` (AsyncBridgeTesting) in tests.
    @inlinable
    public func delay<C: Clock>(
        for duration: C.Duration,
        tolerance: C.Duration? = nil,
        clock: C = ContinuousClock()
    ) -> Flow {
        checkDuration(duration, of: "delay(for:)")
        checkTolerance(tolerance, of: "delay(for:)")
        let upstream = self
        return Flow { subscriber in
            // Events waiting for their time, oldest (and earliest) first; the handler's alone.
            let waiting = SerialState(DelayQueue<Element, C.Instant>())
            let timed = TimedOperator(downstream: subscriber, clock: clock, tolerance: tolerance) { timed, input, now in
                let earliest = waiting.value.earliest
                while let deadline = waiting.value.earliest, deadline <= now {
                    switch waiting.value.removeFirst() {
                    case .some(let value): guard timed.send(value) else { return }
                    case .none: return timed.end(.finished)
                    }
                }
                switch input {
                case .value(let value):
                    waiting.value.append(value, at: now.advanced(by: duration))
                case .completion(.finished):
                    waiting.value.append(nil, at: now.advanced(by: duration))
                case .completion(.failure(let error)):
                    waiting.value.removeAll()
                    return timed.end(.failure(error))
                case .tick:
                    return timed.arm(waiting.value.earliest)
                }
                // The timer already waits for the earliest event if it has not changed.
                if waiting.value.earliest != earliest { timed.arm(waiting.value.earliest) }
            }
            timed.subscribe(to: upstream)
        }
    }
}

/// The events a `delay` holds, in arrival order, each with the instant it is due. Values are
/// `.some`; the finish is `nil`.
@usableFromInline
struct DelayQueue<Element: Sendable, Instant: InstantProtocol>: Sendable {
    @usableFromInline var entries: [(deadline: Instant, value: Element?)] = []
    /// The first entry still waiting: removing from the front moves this instead of the array.
    @usableFromInline var head = 0

    @inlinable
    init() {}

    /// When the first waiting event is due.
    @inlinable
    var earliest: Instant? {
        head < entries.count ? entries[head].deadline : nil
    }

    @inlinable
    mutating func append(_ value: Element?, at deadline: Instant) {
        if head == entries.count {
            entries.removeAll(keepingCapacity: true)
            head = 0
        }
        entries.append((deadline, value))
    }

    /// Removes and returns the first waiting event; the queue must not be empty.
    @inlinable
    mutating func removeFirst() -> Element? {
        defer {
            entries[head].value = nil
            head += 1
            if head == entries.count {
                entries.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 64, head * 2 >= entries.count {
                entries.removeFirst(head)
                head = 0
            }
        }
        return entries[head].value
    }

    @inlinable
    mutating func removeAll() {
        entries = []
        head = 0
    }
}
