/// Something you can push values into that never finishes and never fails, and subscribe
/// to. ``LiveRelay``, ``LatestValueRelay``, ``ReplayingRelay`` and both endpoints of the
/// bidirectional relays (``RelayEndpoint``) conform.
///
/// Useful for generic code that feeds any relay, and as the target of
/// `Flow.bind(to:)`, which forwards values only.
///
/// RxRelay: the relay types' shared `accept(_:)`; Combine has no relay (a
/// `PassthroughSubject<_, Never>` that nobody completes is the nearest).
///
/// ```swift
/// func forward<R: FlowRelay>(_ names: [String], to relay: R) where R.Element == String {
///     for name in names { relay.accept(name) }
/// }
/// ```
public protocol FlowRelay<Element>: Sendable {
    /// What the relay carries.
    ///
    /// ```swift
    /// func clear<R: FlowRelay>(_ relay: R) where R.Element == String { relay.accept("") }
    /// ```
    associatedtype Element: Sendable

    /// Pushes a value to the relay's subscribers.
    ///
    /// ```swift
    /// relay.accept(42)
    /// ```
    func accept(_ value: Element)

    /// The flow of what the relay emits; it never completes.
    ///
    /// ```swift
    /// relay.flow.subscribe(onValue: { print($0) }, onCompletion: { _ in }).store(in: bag)
    /// ```
    var flow: Flow<Element, Never> { get }
}
