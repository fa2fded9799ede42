/// A hot flow you push values into that never finishes and never fails: every subscriber
/// receives what is accepted after it subscribed.
///
/// Useful for events a screen emits for as long as it lives (taps, selections), where a
/// completion or failure would only be a bug: a relay has no way to end, so a subscriber
/// never stops listening by accident.
///
/// RxRelay: `PublishRelay`; Combine: a `PassthroughSubject<_, Never>` that is never completed.
///
/// ```swift
/// let itemSelectedRelay = LiveRelay<Item>()
/// itemSelectedRelay.flow.subscribe(onValue: { open($0) }, onCompletion: { _ in }).store(in: bag)
/// itemSelectedRelay.accept(item)
/// ```
///
/// Threads: as for ``LiveSubject`` — accept from any thread or from inside a handler;
/// deliveries never overlap and keep the order in which values were accepted.
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
        storage = SubjectStorage(bufferSize: 0)
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
