/// What a time-based operator's handler sees, one at a time: an upstream event, or its
/// timer's tick.
@usableFromInline
enum TimedInput<Element: Sendable, Failure: Error>: Sendable {
    case value(Element)
    case completion(FlowCompletion<Failure>)
    /// The timer reached the armed deadline (or woke for one that has moved since): the handler
    /// compares its deadlines with the time it is given.
    case tick
}

/// A time-based operator: a ``SerialOperator`` whose one source is the upstream and whose timer
/// (``FlowTimer``) ticks through the same drain, so `handle` sees events and ticks one at a time,
/// each with the clock's time at arrival (never going backwards), and may keep plain state. It
/// answers through ``send(_:)``, ``arm(_:)`` and ``end(_:)``, called only from `handle`.
///
/// The handler releases whatever is due before looking at the event, so downstream's order
/// depends on the clock only, not on when the timer's task runs.
///
/// ```swift
/// let timed = TimedOperator(downstream: subscriber, clock: clock, tolerance: nil) { timed, input, now in … }
/// timed.subscribe(to: upstream)
/// ```
@usableFromInline
struct TimedOperator<Input: Sendable, Element: Sendable, Failure: Error, C: Clock>: Sendable {
    @usableFromInline typealias Handle = (TimedOperator, TimedInput<Input, Failure>, C.Instant) -> Void
    @usableFromInline typealias Serial = SerialOperator<(TimedInput<Input, Failure>, C.Instant), Element, Failure, FlowTimer<C>>

    @usableFromInline let serial: Serial
    @usableFromInline let clock: C
    @usableFromInline let tolerance: C.Duration?

    @inlinable
    init(serial: Serial, clock: C, tolerance: C.Duration?) {
        self.serial = serial
        self.clock = clock
        self.tolerance = tolerance
    }

    /// `Input` is the upstream's element, when it is not the one sent downstream
    /// (`collect(within:)`), or `Never` for a source.
    @inlinable
    init(
        downstream: FlowSubscriber<Element, Failure>,
        receiving: Input.Type,
        clock: C,
        tolerance: C.Duration?,
        handle: @escaping Handle
    ) {
        // The time given to `handle` last: the handler's alone.
        let latest = SerialState<C.Instant?>(nil)
        let serial = Serial(downstream: downstream, sourceCount: 1) { serial, stamped in
            let now = latest.value.map { max($0, stamped.1) } ?? stamped.1
            latest.value = now
            handle(TimedOperator(serial: serial, clock: clock, tolerance: tolerance), stamped.0, now)
        }
        self.init(serial: serial, clock: clock, tolerance: tolerance)
    }

    @inlinable
    var upstream: FlowSubscription { serial.sources[0] }

    @inlinable
    func subscribe(to flow: Flow<Input, Failure>) {
        let drain = serial.drain
        flow.run(FlowSubscriber(
            subscription: upstream,
            receive: { [clock] in drain.submit((.value($0), clock.now)) ? .more : .stop },
            complete: { [clock] in drain.submit((.completion($0), clock.now)) }
        ))
    }

    /// What hands a completion to `handle`, in turn with the other events, for an upstream
    /// not subscribed through ``subscribe(to:)``. It holds the drain only, not this operator,
    /// so that a cancellation still ends the timer while the upstream keeps it.
    @inlinable
    var completer: @Sendable (FlowCompletion<Failure>) -> Void {
        { [drain = serial.drain, clock] in drain.submit((.completion($0), clock.now)) }
    }

    /// Has `handle` look at the clock (a `.tick`), in turn with the upstream's events: how an
    /// operator arms its first deadline after the upstream's subscribe returned, so that a flow
    /// that completes during its subscribe without a value never starts the timer's task.
    @inlinable
    func tick() {
        serial.drain.submit((.tick, clock.now))
    }

    /// From `handle`: sends a value downstream. Returns `false`, having ended everything, when
    /// downstream wants no more, or cancelled while it received the value (from inside its
    /// handler: then nothing more may reach it, not even the rest of a batch that is due).
    @inlinable
    func send(_ value: Element) -> Bool {
        guard serial.send(value) else { return false }
        guard !serial.downstream.subscription.isCancelled else {
            serial.end(nil)
            return false
        }
        return true
    }

    /// From `handle`: the timer ticks at `deadline` (replacing the deadline armed before), or
    /// at no time (`nil`). The first deadline makes the timer.
    @inlinable
    func arm(_ deadline: C.Instant?) {
        serial.timer {
            let drain = serial.drain
            return FlowTimer(clock: clock, tolerance: tolerance) { [clock] in drain.submit((.tick, clock.now)) }
        }.arm(deadline)
    }

    /// From `handle`: closes the drain, ends the timer, cancels the upstream (unless it
    /// completed), then completes downstream (given a completion, unless it was cancelled).
    @inlinable
    func end(_ completion: FlowCompletion<Failure>?) {
        serial.end(completion)
    }
}

extension FlowTimer: SerialOperatorTimer {}

extension TimedOperator where Input == Element {
    /// For an operator whose upstream sends what it sends downstream (`delay`, `debounce`…).
    @inlinable
    init(
        downstream: FlowSubscriber<Element, Failure>,
        clock: C,
        tolerance: C.Duration?,
        handle: @escaping Handle
    ) {
        self.init(downstream: downstream, receiving: Element.self, clock: clock, tolerance: tolerance, handle: handle)
    }
}
