/// A hot flow you push into: every subscriber receives what is sent after it subscribed,
/// then the completion.
///
/// Useful for bridging imperative code (a delegate callback, a notification) into a flow
/// that can also end. If it never ends, prefer ``LiveRelay``.
///
/// RxSwift: `PublishSubject`; Combine: `PassthroughSubject`.
///
/// ```swift
/// let downloads = LiveSubject<Double, any Error>()
/// downloads.flow.receive(on: MainActor.shared).subscribe(onValue: { progressView.progress = $0 }, onCompletion: { _ in progressView.hide() })
///     .store(in: bag)
/// downloads.send(0.5)
/// downloads.finish()
/// ```
///
/// - **Late subscribers.** A subscriber that arrives after the subject completed gets the
///   completion at once.
/// - **Threads.** `send`, `finish` and `fail` may be called from any thread, and from inside
///   a subscriber's handler. Deliveries never overlap: a thread that sends while another is
///   delivering queues its value and returns, and the delivering thread delivers it next (a
///   send from inside a handler is delivered after the current one, to every subscriber),
///   unlike RxSwift's and OpenCombine's subjects, which deliver on each sending thread: see
///   <doc:Streams>.
/// - **After completion** everything sent is ignored, and the subject no longer holds its
///   subscribers.
public final class LiveSubject<Element: Sendable, Failure: Error>: FlowSubject {
    @usableFromInline let storage: SubjectStorage<Element, Failure>

    /// The values sent from now on, then the completion.
    ///
    /// ```swift
    /// subject.flow.map { $0 * 2 }.subscribe(onValue: { print($0) }, onCompletion: { _ in }).store(in: bag)
    /// ```
    public let flow: Flow<Element, Failure>

    /// Creates a subject with no subscribers.
    ///
    /// ```swift
    /// let taps = LiveSubject<Void, Never>()
    /// ```
    @inlinable
    public init() {
        storage = .live()
        flow = storage.flow
    }

    /// Sends a value to every current subscriber; ignored after the completion.
    ///
    /// RxSwift: `onNext(_:)`; Combine: `send(_:)`.
    ///
    /// ```swift
    /// subject.send(42)
    /// ```
    @inlinable
    public func send(_ value: Element) {
        storage.send(value)
    }

    /// Finishes every subscriber, and later ones at once; later events are ignored.
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

    /// Fails every subscriber, and later ones at once; later events are ignored.
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
