/// How a flow ends: it finished normally, or failed.
///
/// RxSwift: `.completed` / `.error`; Combine: `Subscribers.Completion`.
///
/// ```swift
/// flow.subscribe(onValue: { print($0) }, onCompletion: { completion in
///     if case .failure(let error) = completion { print("failed:", error) }
/// })
/// ```
public enum FlowCompletion<Failure: Error>: Sendable {
    case finished
    case failure(Failure)
}

extension FlowCompletion: Equatable where Failure: Equatable {}

/// One thing a subscriber sees: the grammar is `value* (finished | failure)?`.
///
/// ```swift
/// let events: [FlowEvent<Int, Never>] = [.value(1), .value(2), .finished]
/// ```
public enum FlowEvent<Element, Failure: Error> {
    case value(Element)
    case finished
    case failure(Failure)

    /// The event for a completion.
    ///
    /// ```swift
    /// let event = FlowEvent<Int, Never>(FlowCompletion.finished)   // .finished
    /// ```
    @inlinable
    public init(_ completion: FlowCompletion<Failure>) {
        switch completion {
        case .finished: self = .finished
        case .failure(let error): self = .failure(error)
        }
    }
}

extension FlowEvent: Sendable where Element: Sendable {}
extension FlowEvent: Equatable where Element: Equatable, Failure: Equatable {}
extension FlowEvent: Hashable where Element: Hashable, Failure: Hashable {}
