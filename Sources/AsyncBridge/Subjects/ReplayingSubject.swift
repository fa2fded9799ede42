/// A hot flow that remembers: a new subscriber receives up to `bufferSize` of the latest
/// values, then what is sent after it, then the completion — also after the subject
/// completed.
///
/// ```swift
/// let response = ReplayingSubject<User, APIError>(bufferSize: 1)
/// response.flow.subscribe(onValue: { show($0) }, onCompletion: { _ in }).store(in: bag)   // even if it already arrived
/// ```
///
/// RxSwift: `ReplaySubject.create(bufferSize:)`; Combine: none.
///
/// Threads as for ``LiveSubject``; a new subscriber's replay is queued with the sends, so a
/// concurrent send arrives once, after it. If it never ends, prefer ``ReplayingRelay``.
public final class ReplayingSubject<Element: Sendable, Failure: Error>: FlowSubject {
    @usableFromInline let storage: SubjectStorage<Element, Failure>

    /// The buffered values, then what is sent, then the completion.
    ///
    /// ```swift
    /// subject.flow.subscribe(onValue: { print($0) }, onCompletion: { _ in }).store(in: bag)
    /// ```
    public let flow: Flow<Element, Failure>

    /// Creates a subject that replays up to `bufferSize` of the latest values (`0` none,
    /// `Int.max` all; negative is a precondition failure).
    ///
    /// ```swift
    /// let lastThree = ReplayingSubject<String, Never>(bufferSize: 3)
    /// ```
    @inlinable
    public init(bufferSize: Int) {
        storage = .replaying(bufferSize, initializer: "ReplayingSubject(bufferSize:)")
        flow = storage.flow
    }

    /// Sends a value to every current subscriber and keeps it for later ones; ignored after
    /// the completion.
    ///
    /// RxSwift: `onNext(_:)`; Combine: `send(_:)`.
    ///
    /// ```swift
    /// subject.send("connected")
    /// ```
    @inlinable
    public func send(_ value: Element) {
        storage.send(value)
    }

    /// Finishes every subscriber; later ones get the buffer, then the finish.
    ///
    /// RxSwift: `onCompleted()`; Combine: `send(completion: .finished)`.
    ///
    /// ```swift
    /// subject.finish()
    /// ```
    @inlinable
    public func finish() {
        storage.complete(.finished)
    }

    /// Fails every subscriber; later ones get the buffer, then the failure.
    ///
    /// RxSwift: `onError(_:)`; Combine: `send(completion: .failure(_:))`.
    ///
    /// ```swift
    /// subject.fail(APIError.offline)
    /// ```
    @inlinable
    public func fail(_ error: Failure) {
        storage.complete(.failure(error))
    }
}
