/// A two-way binding between a view and the work behind it, where neither side hears its
/// own values: what ``view`` accepts reaches only `work.flow`, and what ``work`` accepts
/// reaches only `view.flow`.
///
/// Useful for a control bound to an operation (an "action relay"): a switch that
/// triggers an API call, whose result sets the switch. With one ordinary relay both sides
/// read, the work side would hear its own result and call the API again, forever; here it
/// cannot. (The view must also not turn a value it is *shown* back into a user event —
/// assign its state, do not re-emit it.)
///
/// Neither side replays: a subscriber receives only what the other side accepts after it
/// subscribed. Use ``BidirectionalLatestValueRelay`` when the view needs a current value.
///
/// RxSwift: a hand-written `BidirectionalPublishRelay` (two `PublishRelay`s behind two
/// `ControlProperty`s); Combine has none.
///
/// ```swift
/// let notificationsRelay = BidirectionalLiveRelay<Bool>()
/// notificationsSwitch.userChanges.bind(to: notificationsRelay.view).store(in: bag)
/// notificationsRelay.view.flow
///     .subscribe(with: notificationsSwitch) { control, isOn in control.isOn = isOn }
///     .store(in: bag)
/// notificationsRelay.work.flow
///     .subscribe(onValue: { isOn in api.setNotifications(isOn) { notificationsRelay.work.accept($0) } }, onCompletion: { _ in })
///     .store(in: bag)
/// ```
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
