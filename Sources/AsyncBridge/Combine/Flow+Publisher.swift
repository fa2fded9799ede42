#if canImport(Combine)
import Combine
#elseif ASYNCBRIDGE_OPENCOMBINE
import OpenCombine
import AsyncBridge
#endif

#if canImport(Combine) || ASYNCBRIDGE_OPENCOMBINE
// `Flow` → Combine: a publisher that honours demand.
//
// A flow pushes; a Combine subscriber pulls (`request(_:)`). The values the subscriber has
// not asked for yet wait in a buffer whose policy the caller picks; none is dropped without
// either the caller's `onDrop` seeing it or the subscriber seeing a failure.

/// What ``Flow/publisher(bufferingPolicy:onDrop:)`` does with the values a Combine subscriber
/// has not requested yet.
///
/// A value arriving when the subscriber has demand (and nothing is waiting before it) goes
/// straight to the subscriber; otherwise it waits in the buffer, oldest first, and goes out
/// as the subscriber requests more. The policy says what happens when the buffer is full.
/// Its count is of values not requested yet: a value the subscriber has requested, arriving
/// while another thread is still delivering to it, waits for that thread, whatever the count.
///
/// The first three cases mean what they mean in ``FlowBufferingPolicy``; there is no
/// `blockingProducer` here: a Combine subscriber's demand is the back-pressure, and a flow's
/// producer cannot be told to wait for it without blocking its thread.
///
/// Combine: `buffer(size:prefetch:whenFull:)` with `.dropOldest`, `.dropNewest` and
/// `.customError`, which drop silently (and OpenCombine's delivers the `customError` failure
/// as soon as the subscriber has no demand, ahead of the buffered values); RxSwift has no
/// demand, so no equivalent.
///
/// ```swift
/// let latest = locations.publisher(bufferingPolicy: .bufferingNewest(1), onDrop: { skipped in
///     log.debug("skipped \(skipped)")
/// })
/// ```
public enum FlowPublisherBufferingPolicy<Failure: Error>: Sendable {
    /// Keeps every value until the subscriber requests it. The default.
    ///
    /// ```swift
    /// let all = flow.publisher(bufferingPolicy: .unbounded)
    /// ```
    case unbounded

    /// Keeps the newest `count` values: a value arriving at a full buffer evicts the oldest
    /// one not requested, which goes to `onDrop`. `0` keeps none: a value arriving without
    /// demand goes to `onDrop`.
    ///
    /// ```swift
    /// let latest = progress.publisher(bufferingPolicy: .bufferingNewest(1))
    /// ```
    case bufferingNewest(Int)

    /// Keeps the oldest `count` values: a value arriving at a full buffer goes to `onDrop`.
    /// `0` keeps none: a value arriving without demand goes to `onDrop`.
    ///
    /// ```swift
    /// let firstTen = flow.publisher(bufferingPolicy: .bufferingOldest(10))
    /// ```
    case bufferingOldest(Int)

    /// Keeps up to `limit` values; a value arriving at a full buffer fails the publisher with
    /// `error`: that value is discarded, the flow's subscription is cancelled at once (its
    /// cancel action runs), and the subscriber gets the values already buffered, as it
    /// requests them, then the failure (`onDrop` is not called). `0` fails on the first value
    /// that arrives without demand.
    ///
    /// ```swift
    /// let strict = events.publisher(bufferingPolicy: .failingWhenFull(limit: 100, error: .overflow))
    /// ```
    case failingWhenFull(limit: Int, error: Failure)

    /// Traps on a negative count, when the publisher is subscribed.
    func validate() {
        switch self {
        case .unbounded:
            break
        case .bufferingNewest(let count):
            precondition(count >= 0, "AsyncBridge: .bufferingNewest(_:) needs a count of at least 0, got \(count)")
        case .bufferingOldest(let count):
            precondition(count >= 0, "AsyncBridge: .bufferingOldest(_:) needs a count of at least 0, got \(count)")
        case .failingWhenFull(let limit, _):
            precondition(limit >= 0, "AsyncBridge: .failingWhenFull(limit:error:) needs a limit of at least 0, got \(limit)")
        }
    }
}

extension Flow {
    /// The flow as a Combine publisher that honours demand, with an unbounded buffer: a value
    /// the subscriber has not requested yet waits until it does.
    ///
    /// The same as ``publisher(bufferingPolicy:onDrop:)`` with `.unbounded`; see there for
    /// when the flow is subscribed and how it ends.
    ///
    /// RxSwift has none (the RxCombine package's `observable.asPublisher()` pushes whatever
    /// the demand); Combine: `eraseToAnyPublisher()`.
    ///
    /// ```swift
    /// let names: AnyPublisher<String, Never> = nameFlow.publisher
    /// names.sink { print($0) }.store(in: &cancellables)
    /// ```
    public var publisher: AnyPublisher<Element, Failure> {
        publisher(bufferingPolicy: .unbounded)
    }

    /// The flow as a Combine publisher that honours demand: values the subscriber has not
    /// requested wait in a buffer kept by `bufferingPolicy`.
    ///
    /// - **When the flow is subscribed.** On the subscriber's first demand (its first
    ///   `request` of at least one value; `sink` and `assign` request `.unlimited` at once),
    ///   on the thread that requests, not when the subscriber attaches: so a flow that emits
    ///   synchronously when subscribed (`Flow.sequence`, `just`, a subject's replay) emits
    ///   into the subscriber's demand rather than into the buffer. A hot flow's values sent
    ///   before the first demand are not seen. Each Combine subscriber subscribes once: a
    ///   cold flow runs once per subscriber (use `share()` on the flow for one run).
    /// - **Demand.** `request(.max(n))` delivers at most `n` values; the others wait in the
    ///   buffer. A value arriving with demand and nothing waiting goes straight through, on
    ///   the flow's thread. The policy limits only the values beyond the outstanding demand.
    ///   `request(.none)` traps ("API Violation: demand must not be zero"), as Combine's own
    ///   subscriptions do.
    /// - **Nothing dropped silently.** A value the policy drops goes to `onDrop`, on the
    ///   flow's thread, outside the lock; `.failingWhenFull` fails the publisher instead.
    /// - **The end.** The flow's completion or failure is delivered after the values
    ///   buffered before it, and needs no demand: once the buffer is empty, it goes out.
    /// - **Cancellation.** `cancel()` of the Combine subscription (or releasing its
    ///   `AnyCancellable`) cancels the flow's subscription, whose cancel action runs once,
    ///   and discards the buffered values. It takes effect at once, even from inside
    ///   `receive(_:)` in the middle of a synchronous emission: nothing more is delivered and
    ///   the source stops, so `Flow.sequence(0...).publisher.first()` takes one value from
    ///   the endless sequence and returns.
    /// - **Grammar and threads.** The subscriber sees `value* (finished | failure)?`, one
    ///   call at a time, on the thread of the flow's delivery or of the `request` that
    ///   freed a buffered value; a `request` made from inside `receive(_:)` only adds
    ///   demand. Nothing of the subscriber's, and no dropped value, runs or is released
    ///   under the bridge's lock.
    ///
    /// RxSwift has none (the RxCombine package's `observable.asPublisher()` pushes whatever
    /// the demand); Combine: `buffer(size:prefetch:whenFull:)` then `eraseToAnyPublisher()`.
    /// Unlike Combine's `buffer`, which paces its upstream with demand, a flow cannot be asked
    /// to slow down: the buffer is where its surplus waits.
    ///
    /// ```swift
    /// let subject = LiveSubject<Int, Never>()
    /// let cancellable = subject.flow
    ///     .publisher(bufferingPolicy: .bufferingNewest(16), onDrop: { print("dropped", $0) })
    ///     .receive(on: DispatchQueue.main)
    ///     .sink { print($0) }
    /// ```
    ///
    /// - Parameters:
    ///   - bufferingPolicy: what to do with values not yet requested when the buffer is full.
    ///   - onDrop: called with each value the policy drops.
    /// - Returns: a type-erased publisher; each subscriber gets a subscription of its own.
    public func publisher(
        bufferingPolicy: FlowPublisherBufferingPolicy<Failure>,
        onDrop: (@Sendable (Element) -> Void)? = nil
    ) -> AnyPublisher<Element, Failure> {
        FlowPublisherAdapter(flow: self, policy: bufferingPolicy, onDrop: onDrop).eraseToAnyPublisher()
    }
}
#endif
