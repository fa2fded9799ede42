/// A hot flow that remembers and never ends: a new subscriber receives up to `bufferSize`
/// of the latest values, then what is accepted after it.
///
/// Useful for a short history a late subscriber needs (the last few messages, breadcrumbs).
///
/// ```swift
/// let recentSearchesRelay = ReplayingRelay<String>(bufferSize: 5)
/// ```
///
/// RxRelay: `ReplayRelay.create(bufferSize:)`; Combine: none.
///
/// Threads as for ``ReplayingSubject``.
public final class ReplayingRelay<Element: Sendable>: FlowRelay {
    @usableFromInline let storage: SubjectStorage<Element, Never>

    /// The buffered values, then what is accepted; never completes.
    ///
    /// ```swift
    /// relay.flow.subscribe(onValue: { print($0) }, onCompletion: { _ in }).store(in: bag)
    /// ```
    public let flow: Flow<Element, Never>

    /// Creates a relay that replays up to `bufferSize` of the latest values (`0` none,
    /// `Int.max` all; negative is a precondition failure).
    ///
    /// ```swift
    /// let logRelay = ReplayingRelay<String>(bufferSize: 100)
    /// ```
    @inlinable
    public init(bufferSize: Int) {
        storage = .replaying(bufferSize, initializer: "ReplayingRelay(bufferSize:)")
        flow = storage.flow
    }

    /// Sends a value to every current subscriber and keeps it for later ones.
    ///
    /// RxRelay: `accept(_:)`; Combine: `send(_:)`.
    ///
    /// ```swift
    /// logRelay.accept("connected")
    /// ```
    @inlinable
    public func accept(_ value: Element) {
        storage.send(value)
    }
}
