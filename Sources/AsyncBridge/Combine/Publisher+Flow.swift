#if canImport(Combine)
import Combine
#elseif ASYNCBRIDGE_OPENCOMBINE
import OpenCombine
@_spi(AsyncBridgeInternals) import AsyncBridge
#endif

#if canImport(Combine) || ASYNCBRIDGE_OPENCOMBINE
extension Flow {
    /// A Combine publisher as a flow: each subscription subscribes to the publisher, requests
    /// `.unlimited`, and forwards its values and its completion.
    ///
    /// ```swift
    /// let doubled = Flow(subject).map { $0 * 2 }   // subject: PassthroughSubject<Int, Never>
    /// ```
    ///
    /// RxSwift: none (RxCombine's `publisher.asObservable()`); Combine: a `sink` forwarding by hand.
    ///
    /// The publisher is subscribed on the subscribing thread; values arrive on its thread, one
    /// at a time. Cancelling cancels the Combine subscription once, even mid-subscribe;
    /// nothing is delivered after that.
    public init<Upstream: Publisher>(_ publisher: Upstream)
    where Upstream.Output == Element, Upstream.Failure == Failure {
        let source = CombineSource(publisher)
        self = .create { emitter in
            let subscriber = FlowForwardingSubscriber(emitter)
            source.publisher.subscribe(subscriber)
            emitter.onCancel { subscriber.cancel() }
        }
    }
}

extension Publisher where Output: Sendable {
    /// The publisher as a flow: the same as ``Flow/init(_:)``.
    ///
    /// RxSwift: none (RxCombine's `publisher.asObservable()`).
    ///
    /// ```swift
    /// let token = NotificationCenter.default.publisher(for: .didLogIn).flow
    ///     .subscribe { event in print(event) }
    /// ```
    public var flow: Flow<Output, Failure> {
        Flow(self)
    }

    /// The publisher's values as an `AsyncSequence` that throws its typed `Failure`, buffered
    /// by `bufferingPolicy`: `Flow(publisher).values(bufferingPolicy:onDrop:)`.
    ///
    /// ```swift
    /// for try await reading in sensor.publisher.values(bufferingPolicy: .bufferingNewest(1)) { await show(reading) }
    /// ```
    ///
    /// RxSwift: `observable.values`; Combine: `publisher.values` (one value requested at a time,
    /// so a subject's value sent while the body runs is lost).
    ///
    /// Requests `.unlimited`; dropped values go to `onDrop`. Iteration, cancellation and the
    /// failure as for ``FlowValues``.
    public func values(
        bufferingPolicy: FlowBufferingPolicy,
        onDrop: (@Sendable (Output) -> Void)? = nil
    ) -> FlowValues<Output, Failure> {
        Flow(self).values(bufferingPolicy: bufferingPolicy, onDrop: onDrop)
    }
}

/// A publisher held so that a `Sendable` flow (or future) can subscribe to it from any thread;
/// erased so the subscribing closures capture no non-`Sendable` metatype.
///
/// Unchecked: Combine lets `receive(subscriber:)` be called from any thread, and `publisher`
/// is a constant, only ever subscribed to.
struct CombineSource<Output, Failure: Error>: @unchecked Sendable {
    let publisher: AnyPublisher<Output, Failure>

    init<Upstream: Publisher>(_ publisher: Upstream) where Upstream.Output == Output, Upstream.Failure == Failure {
        self.publisher = publisher.eraseToAnyPublisher()
    }
}

/// The Combine subscriber behind ``Flow/init(_:)``: requests `.unlimited` and forwards to the
/// flow's emitter; `cancel()` (the flow's cancel action) cancels the Combine subscription.
///
/// Unchecked: `subscription` is inside the lock; the emitter is `Sendable`.
final class FlowForwardingSubscriber<Input: Sendable, Failure: Error>: Subscriber, @unchecked Sendable {
    /// The Combine subscription, until it is cancelled or completes.
    private enum Phase {
        case awaitingSubscription
        case subscribed(any Subscription)
        /// Completed, or cancelled: a subscription arriving now is cancelled at once.
        case ended
    }

    private let state = SharedLock(Phase.awaitingSubscription)
    private let emitter: FlowEmitter<Input, Failure>

    init(_ emitter: FlowEmitter<Input, Failure>) {
        self.emitter = emitter
    }

    func receive(subscription: any Subscription) {
        let accepted = state.withLock { phase -> Bool in
            guard case .awaitingSubscription = phase else { return false }
            phase = .subscribed(subscription)
            return true
        }
        if accepted {
            subscription.request(.unlimited)
        } else {
            subscription.cancel()  // a second subscription, or one arriving after the cancellation
        }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        emitter.send(input)
        return .none  // `.unlimited` was requested
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        let subscription = end()
        switch completion {
        case .finished: emitter.finish()
        case .failure(let error): emitter.fail(error)
        }
        withExtendedLifetime(subscription) {}  // released after unlocking
    }

    /// The flow's subscription was cancelled.
    func cancel() {
        end()?.cancel()
    }

    /// Moves to `.ended`; returns the subscription, to cancel or release after unlocking.
    @discardableResult
    private func end() -> (any Subscription)? {
        state.withLock { phase -> (any Subscription)? in
            defer { phase = .ended }
            if case .subscribed(let subscription) = phase { return subscription }
            return nil
        }
    }
}
#endif
