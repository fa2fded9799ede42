/// The machinery of the operators whose events, from several sources and perhaps a timer, are
/// handled one at a time: the fan-ins (`merge`, `combineLatest`, `zip`, `withLatestFrom`…) and
/// the time-based operators (`debounce`, `delay`, `throttle`, `timeout`…). Every event goes
/// through one ``SerialDrain``, so the operator's `handle` sees them one at a time, whatever
/// threads they come from, and may keep plain state; it answers through ``send(_:)`` and
/// ``end(_:)`` (and a time-based operator arms its timer, ``timer(orMake:)``).
///
/// A value of this type is the pair the drain hands to `handle`: the per-subscription part and
/// the drain itself, so no reference is filled in after `init`. The one late field is the
/// timer, made by `handle` (inside the drain) when it first arms one.
///
/// ```swift
/// let fanIn = SerialOperator<Event, Int, Never, NoTimer>(downstream: subscriber, sourceCount: 2) { fanIn, event in … }
/// first.run(FlowSubscriber(subscription: fanIn.sources[0], receive: { fanIn.submit(.first($0)) }, complete: …))
/// ```
@usableFromInline
struct SerialOperator<Event: Sendable, Element: Sendable, Failure: Error, Timer: SerialOperatorTimer>: Sendable {
    @usableFromInline typealias Core = SerialOperatorCore<Element, Failure, Timer>

    @usableFromInline let core: Core
    @usableFromInline let drain: SerialDrain<Event>

    @inlinable
    init(core: Core, drain: SerialDrain<Event>) {
        self.core = core
        self.drain = drain
    }

    /// Subscribes nothing yet: each source is subscribed with ``sources``[i] and calls
    /// ``submit(_:)``. The drain holds the per-subscription part until it is closed (at the end,
    /// or on cancellation), and releasing that part ends the timer.
    @inlinable
    init(
        downstream: FlowSubscriber<Element, Failure>,
        sourceCount: Int,
        handle: @escaping (SerialOperator, Event) -> Void
    ) {
        let core = Core(downstream: downstream, sourceCount: sourceCount)
        let drain = SerialDrain<Event> { drain, event in handle(SerialOperator(core: core, drain: drain), event) }
        self.init(core: core, drain: drain)
        downstream.subscription.onCancel { drain.close() }
    }

    @inlinable
    var downstream: FlowSubscriber<Element, Failure> { core.downstream }

    /// One child subscription of the downstream's per source, cancelled by ``end(_:)``.
    @inlinable
    var sources: [FlowSubscription] { core.sources }

    /// From a source (or the timer): queue `event`; `.stop` once the operator has ended.
    @inlinable
    func submit(_ event: Event) -> FlowDemand {
        drain.submit(event) ? .more : .stop
    }

    /// From `handle`: sends a value downstream. Returns `false`, having ended everything, when
    /// downstream wants no more.
    @inlinable
    @discardableResult
    func send(_ value: Element) -> Bool {
        guard downstream.receive(value) == .more else {
            end(nil)
            return false
        }
        return true
    }

    /// From `handle` (or before any event): closes the drain (dropping pending events), ends
    /// the timer, cancels every source, and completes downstream when a completion is given,
    /// unless it was cancelled meanwhile (by a handler of a value `handle` sent).
    @inlinable
    func end(_ completion: FlowCompletion<Failure>?) {
        drain.close()
        core.timer?.end()
        for source in core.sources { source.cancel() }
        if let completion, !downstream.subscription.isCancelled { downstream.complete(completion) }
    }

    /// From `handle`: the timer, made by `make` the first time (it must tick through
    /// ``drain``). Made on demand, inside the drain, because the timer holds the drain, which
    /// does not exist before this operator does.
    @inlinable
    func timer(orMake make: () -> Timer) -> Timer {
        if let timer = core.timer { return timer }
        let timer = make()
        core.timer = timer
        return timer
    }
}

/// What a ``SerialOperator`` ends with its drain: its timer (``FlowTimer``), or nothing
/// (``NoTimer``, a fan-in).
@usableFromInline
protocol SerialOperatorTimer: Sendable {
    /// Nothing fires any more; called more than once, it does nothing more.
    func end()
}

/// The timer of a ``SerialOperator`` that has none: there is no value of it.
@usableFromInline
enum NoTimer: SerialOperatorTimer {
    @inlinable
    func end() {}
}

/// The per-subscription part of a ``SerialOperator``: what lives as long as the subscription.
///
/// Unchecked: `timer` is plain state of the drain's receiver: written once, by `handle` (inside
/// the drain, one call at a time), and read by `handle`, by an ``SerialOperator/end(_:)`` made
/// after that delivery, and by `deinit`, once the drain has released its receiver (no delivery
/// can follow).
@usableFromInline
final class SerialOperatorCore<Element: Sendable, Failure: Error, Timer: SerialOperatorTimer>: @unchecked Sendable {
    @usableFromInline let downstream: FlowSubscriber<Element, Failure>
    @usableFromInline let sources: [FlowSubscription]
    @usableFromInline var timer: Timer?

    @inlinable
    init(downstream: FlowSubscriber<Element, Failure>, sourceCount: Int) {
        self.downstream = downstream
        self.sources = (0..<sourceCount).map { _ in downstream.subscription.child() }
    }

    /// The drain releases this part when it is closed (by ``SerialOperator/end(_:)``, or on
    /// cancellation, once the event being delivered then has been handled): the timer ends
    /// with it, so its task does not outlive the subscription.
    @inlinable
    deinit {
        timer?.end()
    }
}
