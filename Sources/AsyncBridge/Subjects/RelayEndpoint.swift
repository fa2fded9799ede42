/// One side of a bidirectional relay: what it accepts goes to the other side, and its
/// ``flow`` emits only what the other side accepted — never its own values.
///
/// ```swift
/// toggle.userChanges.bind(to: relay.view).store(in: bag)
/// ```
///
/// RxSwift: a `ControlProperty` built from two relays; Combine: none.
///
/// An endpoint holds the relay's channels, not the relay, so it can be passed on alone.
public struct RelayEndpoint<Element: Sendable>: FlowRelay {
    /// Where this side's values go: the channel the other side's flow reads.
    @usableFromInline let outgoing: SubjectStorage<Element, Never>

    /// What the other side accepted (for the view side of a behavior relay, starting with
    /// the current value); never completes.
    ///
    /// ```swift
    /// relay.work.flow.subscribe(onValue: { isOn in api.setNotifications(isOn) }, onCompletion: { _ in }).store(in: bag)
    /// ```
    public let flow: Flow<Element, Never>

    @inlinable
    init(outgoing: SubjectStorage<Element, Never>, incoming: SubjectStorage<Element, Never>) {
        self.outgoing = outgoing
        flow = incoming.flow
    }

    /// Sends a value to the other side's subscribers (never to this side's own).
    ///
    /// RxSwift: the `valueSink` of a `ControlProperty`.
    ///
    /// ```swift
    /// relay.work.accept(savedSetting)   // the view shows it; the work side does not see it
    /// ```
    @inlinable
    public func accept(_ value: Element) {
        outgoing.send(value)
    }
}
