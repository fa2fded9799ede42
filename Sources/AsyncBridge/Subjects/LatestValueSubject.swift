/// A hot flow with a current value: a new subscriber receives the current value first, then
/// what is sent after it, then the completion.
///
/// Useful for state that can end (a download's progress, a session that can be closed). If
/// it never ends, prefer ``LatestValueRelay``.
///
/// RxSwift: `BehaviorSubject`; Combine: `CurrentValueSubject`.
///
/// ```swift
/// let session = LatestValueSubject<Session?, AuthError>(value: nil)
/// session.flow.subscribe(onValue: { render($0) }, onCompletion: { _ in }).store(in: bag)   // render(nil) at once
/// session.send(Session(user: ada))
/// print(session.value)                                              // the new session
/// ```
///
/// - **Late subscribers.** After the subject completed, a new subscriber gets the completion
///   alone, not the last value (as in RxSwift and Combine). Use ``ReplayingSubject`` with
///   `bufferSize: 1` to replay the last value before the completion.
/// - **`value`** stays readable after the completion and keeps the last value sent; it is
///   read-only (send to change it). RxSwift's `value()` throws after a failure; Combine's
///   `value` is settable and sends.
/// - **Threads.** As for ``LiveSubject``: sends from any thread, never overlapping
///   deliveries. A new subscriber's current value takes its place in the same queue as the
///   sends, so it never misses, repeats or reorders a value sent concurrently. `value`
///   reflects a send as soon as `send` returns, even if another thread is still delivering
///   earlier values.
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
        storage = SubjectStorage(bufferSize: 1, initial: [value], replaysAfterCompletion: false)
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
        guard let latest = storage.latest else {
            preconditionFailure("Internal inconsistency: a behavior subject without a value")
        }
        return latest
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
