/// Something you can send values to and then finish or fail, and subscribe to: the input
/// and output of a hot flow. ``LiveSubject``, ``LatestValueSubject`` and ``ReplayingSubject``
/// conform.
///
/// Useful for generic code that feeds any subject, and as the target of
/// `Flow.bind(to:)`, which forwards values and the completion.
///
/// RxSwift: `SubjectType` / `ObserverType`; Combine: `Subject`.
///
/// ```swift
/// func report<S: FlowSubject>(_ progress: [Double], to subject: S) where S.Element == Double {
///     for step in progress { subject.send(step) }
///     subject.finish()
/// }
/// ```
public protocol FlowSubject<Element, Failure>: Sendable {
    /// What the subject sends.
    ///
    /// ```swift
    /// func reset<S: FlowSubject>(_ subject: S) where S.Element == Int { subject.send(0) }
    /// ```
    associatedtype Element: Sendable

    /// How the subject can fail.
    ///
    /// ```swift
    /// func abort<S: FlowSubject>(_ subject: S) where S.Failure == APIError { subject.fail(.cancelled) }
    /// ```
    associatedtype Failure: Error

    /// Sends a value to every subscriber; ignored after the subject completed.
    ///
    /// ```swift
    /// subject.send(42)
    /// ```
    func send(_ value: Element)

    /// Finishes the subject; later sends, finishes and failures are ignored.
    ///
    /// ```swift
    /// subject.finish()
    /// ```
    func finish()

    /// Fails the subject; later sends, finishes and failures are ignored.
    ///
    /// ```swift
    /// subject.fail(APIError.offline)
    /// ```
    func fail(_ error: Failure)

    /// The flow of what is sent from now on (and, depending on the subject, what it replays).
    ///
    /// ```swift
    /// subject.flow.subscribe(onValue: { print($0) }, onCompletion: { _ in }).store(in: bag)
    /// ```
    var flow: Flow<Element, Failure> { get }
}
