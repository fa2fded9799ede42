#if canImport(Combine)
import Combine
#elseif ASYNCBRIDGE_OPENCOMBINE
import OpenCombine
@_spi(AsyncBridgeInternals) import AsyncBridge
#endif

#if canImport(Combine) || ASYNCBRIDGE_OPENCOMBINE
extension SharedFuture {
    /// A Combine `Future` as a `SharedFuture` of the same types.
    ///
    /// RxSwift: `Single` + `share(replay: 1, scope: .forever)`; Combine: the `Future` itself.
    ///
    /// Subscribes at the first consumer; cancelling does not stop the Combine `Future`'s work,
    /// which started when it was created.
    ///
    /// ```swift
    /// let combineFuture = Future<User, APIError> { promise in api.getUser(id: 42, completion: promise) }
    /// let user = try await SharedFuture(combineFuture).value
    /// ```
    public init(_ future: Future<Success, Failure>) {
        self = Self.firstValue(of: CombineSource(future), ifEmpty: nil)
    }

    /// A publisher's first value, typed: the publisher's failure, or `emptyFailure` when it
    /// finishes without a value.
    ///
    /// RxSwift: `take(1).asSingle()`; Combine: `first()` (which just finishes when empty).
    ///
    /// Subscribes at the first consumer with demand `.max(1)` and cancels at the value or when
    /// the last consumer leaves; consumers share the result.
    ///
    /// ```swift
    /// let user = SharedFuture(firstValueOf: userPublisher, ifEmpty: APIError.notFound)   // SharedFuture<User, APIError>
    /// ```
    public init<Upstream: Publisher>(firstValueOf publisher: Upstream, ifEmpty emptyFailure: Failure)
    where Upstream.Output == Success, Upstream.Failure == Failure {
        self = Self.firstValue(of: CombineSource(publisher), ifEmpty: emptyFailure)
    }
}

extension SharedFuture where Failure == any Error {
    /// A publisher's first value: the publisher's failure, or ``AsyncBridgeError/noValue``
    /// when it finishes without a value (as ``Flow/firstValue`` does).
    ///
    /// ```swift
    /// let session = try await SharedFuture(firstValueOf: sessionPublisher).value
    /// ```
    ///
    /// RxSwift: `first()` (`nil` when empty); Combine: `first()` (which just finishes when empty).
    ///
    /// Subscribed as for ``init(firstValueOf:ifEmpty:)``, which keeps the typed failure.
    public init<Upstream: Publisher>(firstValueOf publisher: Upstream) where Upstream.Output == Success {
        let source = CombineSource(publisher.mapError { $0 as any Error })
        self = Self.firstValue(of: source, ifEmpty: AsyncBridgeError.noValue)
    }
}

extension SharedFuture {
    /// The future of `source`'s first value; `ifEmpty` is the failure of a publisher that
    /// finishes without one (`nil`: the run ends with ``AsyncBridgeError/completionNeverCalled``,
    /// for a Combine `Future`, which cannot finish empty).
    static func firstValue(of source: CombineSource<Success, Failure>, ifEmpty: Failure?) -> SharedFuture {
        SharedFuture { (completion: @escaping @Sendable (Result<Success, Failure>) -> Void, onCancel) in
            let subscriber = FirstValueSubscriber<Success, Failure> { outcome in
                switch outcome {
                case .value(let value): completion(.success(value))
                case .failure(let error): completion(.failure(error))
                case .empty: if let ifEmpty { completion(.failure(ifEmpty)) }
                }
            }
            source.publisher.subscribe(subscriber)
            onCancel { subscriber.cancel() }
        }
    }
}

/// The Combine subscriber behind `SharedFuture(firstValueOf:)`: requests one value, reports the
/// first deciding event, and cancels the Combine subscription at the value or the run's cancel.
///
/// Unchecked: the mutable state is inside the lock; `report` is `Sendable`.
final class FirstValueSubscriber<Input: Sendable, Failure: Error>: Subscriber, @unchecked Sendable {
    /// What decides the result.
    enum Outcome {
        case value(Input)
        case failure(Failure)
        /// The publisher finished without a value.
        case empty
    }

    private enum Phase {
        case awaitingSubscription(report: @Sendable (Outcome) -> Void)
        case subscribed(any Subscription, report: @Sendable (Outcome) -> Void)
        /// Reported, or cancelled: everything later is ignored, and a subscription arriving
        /// now is cancelled at once.
        case ended
    }

    private let state: SharedLock<Phase>

    init(report: @escaping @Sendable (Outcome) -> Void) {
        state = SharedLock(.awaitingSubscription(report: report))
    }

    func receive(subscription: any Subscription) {
        let accepted = state.withLock { phase -> Bool in
            guard case .awaitingSubscription(let report) = phase else { return false }
            phase = .subscribed(subscription, report: report)
            return true
        }
        if accepted {
            subscription.request(.max(1))
        } else {
            subscription.cancel()  // a second subscription, or one arriving after the cancellation
        }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        let (subscription, report) = end()
        subscription?.cancel()  // one value is all it takes
        report?(.value(input))
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        let (subscription, report) = end()
        switch completion {
        case .finished: report?(.empty)
        case .failure(let error): report?(.failure(error))
        }
        withExtendedLifetime(subscription) {}  // released after unlocking
    }

    /// The future's run was cancelled (its last consumer left).
    func cancel() {
        let (subscription, report) = end()
        subscription?.cancel()
        withExtendedLifetime(report) {}  // released after unlocking, unreported
    }

    /// Moves to `.ended`; returns what it held, to be used or released after unlocking.
    private func end() -> ((any Subscription)?, (@Sendable (Outcome) -> Void)?) {
        state.withLock { phase -> ((any Subscription)?, (@Sendable (Outcome) -> Void)?) in
            defer { phase = .ended }
            switch phase {
            case .awaitingSubscription(let report): return (nil, report)
            case .subscribed(let subscription, let report): return (subscription, report)
            case .ended: return (nil, nil)
            }
        }
    }
}
#endif
