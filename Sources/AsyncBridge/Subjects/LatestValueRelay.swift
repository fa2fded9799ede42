/// A hot flow with a current value that never finishes and never fails: a new subscriber
/// receives the current value first, then what is accepted after it.
///
/// Useful for the state of a screen or a component (UI state), which has a value at every moment and no end.
///
/// RxRelay: `BehaviorRelay`; Combine: a `CurrentValueSubject<_, Never>` that is never
/// completed.
///
/// ```swift
/// modelRelay.flow.subscribe(onValue: { render($0) }, onCompletion: { _ in }).store(in: bag)   // the current value at once
/// ```
///
/// Threads as for ``LatestValueSubject``; `value` reflects an `accept` as soon as it returns.
public final class LatestValueRelay<Element: Sendable>: FlowRelay {
    @usableFromInline let storage: SubjectStorage<Element, Never>

    /// The current value, then what is accepted; never completes.
    ///
    /// ```swift
    /// relay.flow.receive(on: MainActor.shared).subscribe(onValue: { label.text = $0 }, onCompletion: { _ in }).store(in: bag)
    /// ```
    public let flow: Flow<Element, Never>

    /// Creates a relay whose current value is `value`.
    ///
    /// RxRelay: `BehaviorRelay(value:)`; Combine: `CurrentValueSubject(_:)`.
    ///
    /// ```swift
    /// let isLoadingRelay = LatestValueRelay(value: false)
    /// ```
    @inlinable
    public init(value: Element) {
        storage = .latestValue(value)
        flow = storage.flow
    }

    /// The latest value accepted, or the initial one.
    ///
    /// RxRelay: `value`; Combine: `value` (which is also settable there).
    ///
    /// ```swift
    /// if !isLoadingRelay.value { reload() }
    /// ```
    @inlinable
    public var value: Element {
        storage.current
    }

    /// Makes `value` the current value and sends it to every subscriber.
    ///
    /// RxRelay: `accept(_:)`; Combine: `send(_:)`.
    ///
    /// ```swift
    /// isLoadingRelay.accept(true)
    /// ```
    @inlinable
    public func accept(_ value: Element) {
        storage.send(value)
    }
}
