#if canImport(Combine)
import Combine
#elseif ASYNCBRIDGE_OPENCOMBINE
import OpenCombine
@_spi(AsyncBridgeInternals) import AsyncBridge
#endif

#if canImport(Combine) || ASYNCBRIDGE_OPENCOMBINE
// Combine → `Flow`, and through it to `AsyncSequence`.
//
// Each flow subscription subscribes to the publisher once, requests `.unlimited` (a flow has
// no demand: it pushes, and its subscribers buffer or drop as they choose), and cancels the
// Combine subscription when it is cancelled.

extension Flow {
    /// A Combine publisher as a flow: each subscription subscribes to the publisher, requests
    /// `.unlimited`, and forwards its values and its completion.
    ///
    /// - **Demand.** `.unlimited`, requested as soon as the publisher hands over its
    ///   subscription: a flow pushes, so the publisher's values arrive as it produces them
    ///   (give the flow's consumer a buffering policy, e.g. `values(bufferingPolicy:)`, to
    ///   bound what waits).
    /// - **Cancellation.** Cancelling the flow's subscription cancels the Combine
    ///   subscription, once (also when it comes while the publisher is still subscribing),
    ///   and releases it; nothing is delivered after that.
    /// - **Threads.** Values arrive on the publisher's thread; a publisher that delivers
    ///   from several threads at once is serialised (the flow delivers one event at a time).
    ///
    /// The publisher is subscribed on the thread that subscribes to the flow (Combine allows
    /// any thread: that is what its `subscribe(on:)` does).
    ///
    /// RxSwift has none (the RxCombine package: `publisher.asObservable()`); Combine: a `sink`
    /// forwarding to an emitter, by hand.
    ///
    /// ```swift
    /// let subject = PassthroughSubject<Int, Never>()
    /// let doubled = Flow(subject).map { $0 * 2 }   // Flow<Int, Never>
    /// ```
    public init<Upstream: Publisher>(_ publisher: Upstream)
    where Upstream.Output == Element, Upstream.Failure == Failure {
        let source = CombineSource(publisher)
        self = .create { emitter -> CancelAction in
            let subscriber = FlowForwardingSubscriber(emitter)
            source.publisher.subscribe(subscriber)
            return { subscriber.cancel() }
        }
    }
}

extension Publisher where Output: Sendable {
    /// The publisher as a flow: the same as ``Flow/init(_:)`` (a flow subscription subscribes,
    /// requests `.unlimited`, and its cancellation cancels the Combine subscription).
    ///
    /// RxSwift has none (the RxCombine package: `publisher.asObservable()`).
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
    /// Unlike Combine's `values`, which requests one value at a time and so loses what a
    /// `PassthroughSubject` sends while the loop's body runs, this requests `.unlimited` and
    /// keeps what arrives in the buffer; a value the policy drops goes to `onDrop`, never
    /// silently. `makeAsyncIterator()` (the start of a `for await` loop) subscribes to the
    /// publisher; cancelling the iterating task or leaving the loop cancels the Combine
    /// subscription; the publisher's failure is thrown once, after the values buffered
    /// before it. See ``FlowValues`` and ``FlowBufferingPolicy``.
    ///
    /// The label keeps it apart from Combine's `values` property, whichever is in scope.
    ///
    /// RxSwift: `observable.values` (an unbounded buffer); Combine: `publisher.values` (no
    /// buffer: one value requested at a time).
    ///
    /// ```swift
    /// for try await reading in sensor.publisher.values(bufferingPolicy: .bufferingNewest(1)) {
    ///     await show(reading)   // the latest; readings that arrive while it renders are replaced
    /// }
    /// ```
    public func values(
        bufferingPolicy: FlowBufferingPolicy,
        onDrop: (@Sendable (Output) -> Void)? = nil
    ) -> FlowValues<Output, Failure> {
        Flow(self).values(bufferingPolicy: bufferingPolicy, onDrop: onDrop)
    }
}

/// A publisher, type-erased and held so that a `Sendable` flow (or future) can subscribe to it
/// from any thread.
///
/// Erased to `AnyPublisher` so that the `Sendable` closures that subscribe capture no metatype
/// of the publisher's own type (which is not `Sendable`), only `Output` and `Failure`.
///
/// ```swift
/// let source = CombineSource(publisher)
/// source.publisher.subscribe(subscriber)
/// ```
///
/// Unchecked: Combine publishers are not marked `Sendable`, but Combine's contract is that
/// `receive(subscriber:)` may be called from any thread (`subscribe(on:)` does exactly that),
/// and `publisher` is a constant, only ever subscribed to.
struct CombineSource<Output, Failure: Error>: @unchecked Sendable {
    let publisher: AnyPublisher<Output, Failure>

    init<Upstream: Publisher>(_ publisher: Upstream) where Upstream.Output == Output, Upstream.Failure == Failure {
        self.publisher = publisher.eraseToAnyPublisher()
    }
}

/// The Combine subscriber behind ``Flow/init(_:)``: requests `.unlimited` and forwards to the
/// flow's emitter; `cancel()` (the flow's cancel action) cancels the Combine subscription.
///
/// ```swift
/// let subscriber = FlowForwardingSubscriber(emitter)
/// publisher.subscribe(subscriber)
/// ```
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

    /// Moves to `.ended`; returns the subscription it held, to be cancelled or released
    /// after unlocking.
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
