/// A hot flow that remembers: a new subscriber receives up to `bufferSize` of the latest
/// values, then what is sent after it, then the completion — also after the subject
/// completed.
///
/// Useful for a result that late subscribers must not miss (a request's response, the last
/// few log lines). If it never ends, prefer ``ReplayingRelay``.
///
/// RxSwift: `ReplaySubject.create(bufferSize:)`; Combine has none (CombineExt's
/// `ReplayingSubject` is the nearest).
///
/// ```swift
/// let response = ReplayingSubject<User, APIError>(bufferSize: 1)
/// api.getUser(id: 42) { result in
///     switch result {
///     case .success(let user): response.send(user); response.finish()
///     case .failure(let error): response.fail(error)
///     }
/// }
/// response.flow.subscribe(onValue: { show($0) }, onCompletion: { _ in }).store(in: bag)   // even if it already arrived
/// ```
///
/// - **Late subscribers** after the completion get the buffered values, then the completion
///   (as in RxSwift).
/// - **Threads.** As for ``LiveSubject``. A new subscriber's replay takes its place in the
///   same queue as the sends: whatever another thread sends while it subscribes arrives
///   exactly once, after the replay, in order.
public final class ReplayingSubject<Element: Sendable, Failure: Error>: FlowSubject {
    @usableFromInline let storage: SubjectStorage<Element, Failure>

    /// The buffered values, then what is sent, then the completion.
    ///
    /// ```swift
    /// subject.flow.subscribe(onValue: { print($0) }, onCompletion: { _ in }).store(in: bag)
    /// ```
    public let flow: Flow<Element, Failure>

    /// Creates a subject that replays up to `bufferSize` of the latest values (`0` replays
    /// none, like a ``LiveSubject``; `Int.max` replays all; negative is a precondition
    /// failure, README, "Durations and counts").
    ///
    /// ```swift
    /// let lastThree = ReplayingSubject<String, Never>(bufferSize: 3)
    /// ```
    @inlinable
    public init(bufferSize: Int) {
        checkCount(bufferSize, of: "ReplayingSubject(bufferSize:)", named: "bufferSize", atLeast: 0)
        storage = SubjectStorage(bufferSize: bufferSize)
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
