/// A two-way binding between a view and the work behind it, where neither side hears its
/// own values: what ``view`` accepts reaches only `work.flow`, and what ``work`` accepts
/// reaches only `view.flow`.
///
/// ```swift
/// notificationsSwitch.userChanges.bind(to: relay.view).store(in: bag)
/// relay.work.flow.subscribe(onValue: { isOn in api.setNotifications(isOn) { relay.work.accept($0) } },
///                           onCompletion: { _ in }).store(in: bag)
/// ```
///
/// RxSwift: a hand-written `BidirectionalPublishRelay`; Combine: none.
///
/// Neither side replays (see ``BidirectionalLatestValueRelay`` for a current value). The view
/// must assign what it is shown, not re-emit it as a user event.
public final class BidirectionalLiveRelay<Element: Sendable>: Sendable {
    /// The view's side: accepts user input, emits what the work side accepted.
    ///
    /// ```swift
    /// relay.view.accept(true)   // the user flipped the switch
    /// ```
    public let view: RelayEndpoint<Element>

    /// The work's side: accepts results, emits what the view side accepted.
    ///
    /// ```swift
    /// relay.work.flow.subscribe(onValue: { save($0) }, onCompletion: { _ in }).store(in: bag)
    /// ```
    public let work: RelayEndpoint<Element>

    /// Creates a relay whose sides have heard nothing yet.
    ///
    /// ```swift
    /// let relay = BidirectionalLiveRelay<Bool>()
    /// ```
    @inlinable
    public init() {
        let fromView = SubjectStorage<Element, Never>(bufferSize: 0)
        let fromWork = SubjectStorage<Element, Never>(bufferSize: 0)
        view = RelayEndpoint(outgoing: fromView, incoming: fromWork)
        work = RelayEndpoint(outgoing: fromWork, incoming: fromView)
    }
}
