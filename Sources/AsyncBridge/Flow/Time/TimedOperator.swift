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

/// The machinery of the time-based operators: one subscription's upstream events and timer
/// ticks go through one ``SerialDrain``, so `handle` sees them one at a time, each with the
/// clock's time at arrival, and may keep plain state; it answers through ``send(_:)``,
/// ``arm(_:)`` and ``end(_:)``, called only from `handle`.
///
/// The handler releases whatever is due before looking at the event, so downstream's order
/// depends on the clock only, not on when the timer's task runs. An event's time is read when
/// it arrives (a `delay` measures from there) and never goes backwards for `handle`.
///
/// ```swift
/// let timed = TimedOperator(downstream: subscriber, clock: clock, tolerance: nil) { timed, input, now in … }
/// timed.subscribe(to: upstream)
/// ```
///
/// Unchecked: `drain` and `timer` are written once, in `init`, before the object is shared;
/// `handle` and `latest` are used only inside the drain.
@usableFromInline
final class TimedOperator<Input: Sendable, Element: Sendable, Failure: Error, C: Clock>: @unchecked Sendable {
    @usableFromInline typealias Handle = (TimedOperator, TimedInput<Input, Failure>, C.Instant) -> Void

    @usableFromInline let downstream: FlowSubscriber<Element, Failure>
    @usableFromInline let upstream: FlowSubscription
    @usableFromInline let clock: C
    /// Set once, in `init`, before anything can see this object.
    @usableFromInline private(set) var drain: SerialDrain<(TimedInput<Input, Failure>, C.Instant)>!
    /// The time given to `handle` last: inside the drain only.
    @usableFromInline var latest: C.Instant?
    @usableFromInline private(set) var timer: FlowTimer<C>!

    /// The drain and the timer hold `self` (through `handle`'s argument) until they are closed
    /// and ended: at the end, or on cancellation. `Input` is the upstream's element, when it is
    /// not the one sent downstream (`collect(within:)`), or `Never` for a source.
    @inlinable
    init(
        downstream: FlowSubscriber<Element, Failure>,
        receiving: Input.Type,
        clock: C,
        tolerance: C.Duration?,
        handle: @escaping Handle
    ) {
        self.downstream = downstream
        self.upstream = downstream.subscription.child()
        self.clock = clock
        let drain = SerialDrain<(TimedInput<Input, Failure>, C.Instant)> { _, stamped in
            let now = self.latest.map { max($0, stamped.1) } ?? stamped.1
            self.latest = now
            handle(self, stamped.0, now)
        }
        let timer = FlowTimer(clock: clock, tolerance: tolerance) { drain.submit((.tick, clock.now)) }
        self.drain = drain
        self.timer = timer
        downstream.subscription.onCancel {
            drain.close()
            timer.end()
        }
    }

    /// Subscribes to `flow`, whose events go to `handle`.
    @inlinable
    func subscribe(to flow: Flow<Input, Failure>) {
        let drain = self.drain!
        flow.run(FlowSubscriber(
            subscription: upstream,
            receive: { [clock] in drain.submit((.value($0), clock.now)) ? .more : .stop },
            complete: { [clock] in drain.submit((.completion($0), clock.now)) }
        ))
    }

    /// Has `handle` look at the clock (a `.tick`), in turn with the upstream's events: how an
    /// operator arms its first deadline once the upstream's subscribe has returned, so that a
    /// flow that completes during its subscribe without a value never starts the timer's task
    /// (one that sends values first arms the timer with its first value, as any value does).
    @inlinable
    func tick() {
        drain.submit((.tick, clock.now))
    }

    /// From `handle`: sends a value downstream. Returns `false`, having ended everything, when
    /// downstream wants no more, or cancelled while it received the value (from inside its
    /// handler: then nothing more may reach it, not even the rest of a batch that is due).
    @inlinable
    func send(_ value: Element) -> Bool {
        guard downstream.receive(value) == .more, !downstream.subscription.isCancelled else {
            end(nil)
            return false
        }
        return true
    }

    /// From `handle`: the timer ticks at `deadline` (replacing the deadline armed before), or
    /// at no time (`nil`).
    @inlinable
    func arm(_ deadline: C.Instant?) {
        timer.arm(deadline)
    }

    /// From `handle`: closes the drain, ends the timer, cancels the upstream (if it has not
    /// completed), then completes downstream (when a completion is given).
    @inlinable
    func end(_ completion: FlowCompletion<Failure>?) {
        drain.close()
        timer.end()
        upstream.cancel()
        if let completion { downstream.complete(completion) }
    }
}

extension TimedOperator where Input == Element {
    /// For an operator whose upstream sends what it sends downstream (`delay`, `debounce`…).
    @inlinable
    convenience init(
        downstream: FlowSubscriber<Element, Failure>,
        clock: C,
        tolerance: C.Duration?,
        handle: @escaping Handle
    ) {
        self.init(downstream: downstream, receiving: Element.self, clock: clock, tolerance: tolerance, handle: handle)
    }
}
