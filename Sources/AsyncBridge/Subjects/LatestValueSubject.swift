/// A hot flow with a current value: a new subscriber receives the current value first, then
/// what is sent after it, then the completion.
///
/// ```swift
/// let session = LatestValueSubject<Session?, AuthError>(value: nil)
/// session.flow.subscribe(onValue: { render($0) }, onCompletion: { _ in }).store(in: bag)   // render(nil) at once
/// ```
///
/// RxSwift: `BehaviorSubject`; Combine: `CurrentValueSubject`.
///
/// After the completion a new subscriber gets the completion alone. ``value`` stays readable
/// and read-only, and reflects a send as soon as `send` returns. Threads as for ``LiveSubject``.
/// If it never ends, prefer ``LatestValueRelay``.
public final class LatestValueSubject<Element: Sendable, Failure: Error>: FlowSubject {
    @usableFromInline let storage: SubjectStorage<Element, Failure>

    /// The current value, then what is sent, then the completion.
    ///
    /// ```swift
    /// subject.flow.receive(on: MainActor.shared).subscribe(onValue: { label.text = $0 }, onCompletion: { _ in }).store(in: bag)
    /// ```
    public let flow: Flow<Element, Failure>

    /// Creates a subject whose current value is `value`.
    ///
    /// RxSwift: `BehaviorSubject(value:)`; Combine: `CurrentValueSubject(_:)`.
    ///
    /// ```swift
    /// let volume = LatestValueSubject<Double, Never>(value: 0.5)
    /// ```
    @inlinable
    public init(value: Element) {
        storage = .latestValue(value)
        flow = storage.flow
    }

    /// The latest value sent, or the initial one.
    ///
    /// RxSwift: `try value()`; Combine: `value`.
    ///
    /// ```swift
    /// if subject.value > 0.9 { warnAboutVolume() }
    /// ```
    @inlinable
    public var value: Element {
        storage.current
    }

    /// Makes `value` the current value and sends it to every subscriber; ignored after the
    /// completion.
    ///
    /// RxSwift: `onNext(_:)`; Combine: `send(_:)`.
    ///
    /// ```swift
    /// subject.send(0.8)
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
    /// subject.fail(AuthError.expired)
    /// ```
    @inlinable
    public func fail(_ error: Failure) {
        storage.complete(.failure(error))
    }
}
