/// A hot flow you push values into that never finishes and never fails: every subscriber
/// receives what is accepted after it subscribed.
///
/// Useful for events a screen emits for as long as it lives (taps, selections).
///
/// ```swift
/// itemSelectedRelay.accept(item)
/// ```
///
/// RxRelay: `PublishRelay`; Combine: a `PassthroughSubject<_, Never>` that is never completed.
///
/// Threads as for ``LiveSubject``: accept from any thread; deliveries never overlap, in order.
public final class LiveRelay<Element: Sendable>: FlowRelay {
    @usableFromInline let storage: SubjectStorage<Element, Never>

    /// What is accepted from now on; never completes.
    ///
    /// ```swift
    /// relay.flow.subscribe(onValue: { print($0) }, onCompletion: { _ in }).store(in: bag)
    /// ```
    public let flow: Flow<Element, Never>

    /// Creates a relay with no subscribers.
    ///
    /// ```swift
    /// let refreshRelay = LiveRelay<Void>()
    /// ```
    @inlinable
    public init() {
        storage = .live()
        flow = storage.flow
    }

    /// Sends a value to every current subscriber.
    ///
    /// RxRelay: `accept(_:)`; Combine: `send(_:)`.
    ///
    /// ```swift
    /// relay.accept(item)
    /// ```
    @inlinable
    public func accept(_ value: Element) {
        storage.send(value)
    }
}
