/// A two-way binding like ``BidirectionalLiveRelay``, where the view side starts from a
/// value: a subscriber to `view.flow` first receives the latest value the work side
/// accepted (or the initial value), then what the work side accepts after it.
///
/// ```swift
/// let relay = BidirectionalLatestValueRelay(value: settings.notificationsOn)
/// relay.view.flow.subscribe(with: notificationsSwitch) { control, isOn in control.isOn = isOn }.store(in: bag)
/// ```
///
/// RxSwift: a hand-written `BidirectionalBehaviorRelay`; Combine: none.
///
/// The work side does not replay, so subscribing the worker never triggers the operation.
public final class BidirectionalLatestValueRelay<Element: Sendable>: Sendable {
    /// The view's side: accepts user input, emits the current value and then what the work
    /// side accepts.
    ///
    /// ```swift
    /// relay.view.flow.receive(on: MainActor.shared).subscribe(onValue: { toggle.isOn = $0 }, onCompletion: { _ in }).store(in: bag)
    /// ```
    public let view: RelayEndpoint<Element>

    /// The work's side: accepts results (which become the view's current value), emits what
    /// the view side accepts.
    ///
    /// ```swift
    /// relay.work.accept(confirmedSetting)
    /// ```
    public let work: RelayEndpoint<Element>

    /// Creates a relay whose view side starts from `value`.
    ///
    /// ```swift
    /// let relay = BidirectionalLatestValueRelay(value: false)
    /// ```
    @inlinable
    public init(value: Element) {
        let fromView = SubjectStorage<Element, Never>(bufferSize: 0)
        let fromWork = SubjectStorage<Element, Never>(bufferSize: 1, initial: [value])
        view = RelayEndpoint(outgoing: fromView, incoming: fromWork)
        work = RelayEndpoint(outgoing: fromWork, incoming: fromView)
    }
}
