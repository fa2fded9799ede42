/// The machinery of the operators that combine several flows (`merge`, `combineLatest`,
/// `zip`, `withLatestFrom`): every source's events go through one `SerialDrain`, so the
/// operator's `handle` sees them one at a time, whatever threads they come from, and may keep
/// plain state; it answers through `send` and `end`, which it only calls from `handle`.
///
/// Unchecked: `drain` is written once, in `init`, before any source can see the object, and only
/// read afterwards; `handle` runs only inside the drain, one call at a time.
@usableFromInline
final class FanIn<Event: Sendable, Element: Sendable, Failure: Error>: @unchecked Sendable {
    @usableFromInline let downstream: FlowSubscriber<Element, Failure>
    @usableFromInline let sources: [FlowSubscription]
    /// Set once, in `init`, before any source can see this object.
    @usableFromInline private(set) var drain: SerialDrain<Event>!

    /// Subscribes nothing yet; call ``submit(_:)`` from each source, subscribed with
    /// ``sources``[i].
    @inlinable
    init(downstream: FlowSubscriber<Element, Failure>, sourceCount: Int, handle: @escaping (FanIn, Event) -> Void) {
        self.downstream = downstream
        self.sources = (0..<sourceCount).map { _ in downstream.subscription.child() }
        // The drain holds `self` until it is closed (at the end or on cancellation).
        let drain = SerialDrain<Event> { _, event in handle(self, event) }
        self.drain = drain
        downstream.subscription.onCancel { drain.close() }
    }

    /// From a source: queue `event`; `.stop` once the combined flow has ended.
    @inlinable
    func submit(_ event: Event) -> FlowDemand {
        drain.submit(event) ? .more : .stop
    }

    /// From `handle`: sends a value downstream; ends everything if the subscriber wants no
    /// more.
    @inlinable
    func send(_ value: Element) {
        if downstream.receive(value) == .stop { end(nil) }
    }

    /// From `handle`: cancels every source, drops pending events, and completes downstream
    /// (when a completion is given), unless it was cancelled meanwhile (a handler of the value
    /// this `handle` sent).
    @inlinable
    func end(_ completion: FlowCompletion<Failure>?) {
        drain.close()
        for source in sources { source.cancel() }
        if let completion, !downstream.subscription.isCancelled { downstream.complete(completion) }
    }
}
