#if canImport(Combine)
import Combine
#elseif ASYNCBRIDGE_OPENCOMBINE
import OpenCombine
import AsyncBridge
#endif

#if canImport(Combine) || ASYNCBRIDGE_OPENCOMBINE
/// What ``Flow/publisher(bufferingPolicy:onDrop:)`` does with the values a Combine subscriber
/// has not requested yet.
///
/// ```swift
/// let latest = locations.publisher(bufferingPolicy: .bufferingNewest(1), onDrop: { log.debug("skipped \($0)") })
/// ```
///
/// Combine: `buffer(size:prefetch:whenFull:)` (which drops silently); RxSwift: none (no demand).
///
/// A value arriving with demand and nothing waiting goes straight through; otherwise it waits,
/// oldest first. The limit counts only values not requested yet.
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

    // Indirect: a boxed error keeps the policy's layout independent of `Failure`, so the
    // bridge's unspecialised code copies it without metadata.
    /// Keeps up to `limit` values; a value arriving at a full buffer is discarded, the flow is
    /// cancelled, and the subscriber gets the buffered values, then `error` (`onDrop` is not
    /// called). `0` fails on the first value that arrives without demand.
    ///
    /// ```swift
    /// let strict = events.publisher(bufferingPolicy: .failingWhenFull(limit: 100, error: .overflow))
    /// ```
    indirect case failingWhenFull(limit: Int, error: Failure)

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
    /// The flow as a Combine publisher: ``publisher(bufferingPolicy:onDrop:)`` with `.unbounded`.
    ///
    /// RxSwift: none (RxCombine's `asPublisher()`); Combine: `eraseToAnyPublisher()`.
    ///
    /// ```swift
    /// let names: AnyPublisher<String, Never> = nameFlow.publisher
    /// names.sink { print($0) }.store(in: &cancellables)
    /// ```
    @inlinable
    public var publisher: AnyPublisher<Element, Failure> {
        publisher(bufferingPolicy: .unbounded)
    }

    /// The flow as a Combine publisher that honours demand: values the subscriber has not
    /// requested wait in a buffer kept by `bufferingPolicy`.
    ///
    /// ```swift
    /// let cancellable = subject.flow
    ///     .publisher(bufferingPolicy: .bufferingNewest(16), onDrop: { print("dropped", $0) })
    ///     .sink { print($0) }
    /// ```
    ///
    /// RxSwift: none (RxCombine's `asPublisher()` ignores demand); Combine:
    /// `buffer(size:prefetch:whenFull:)` then `eraseToAnyPublisher()`.
    ///
    /// - The flow is subscribed at the subscriber's first demand, on the requesting thread, once
    ///   per subscriber; a hot flow's values sent before that are not seen.
    /// - `request(.max(n))` delivers at most `n` values; the policy limits only values beyond
    ///   the outstanding demand. `request(.none)` traps, as in Combine.
    /// - A dropped value goes to `onDrop`, on the flow's thread, outside the lock.
    /// - The completion follows the buffered values and needs no demand.
    /// - `cancel()` cancels the flow at once, even from inside `receive(_:)` during a
    ///   synchronous emission, and discards the buffer.
    /// - The subscriber is called one call at a time, never under the bridge's lock.
    /// - A negative count or limit in the policy traps when the publisher is subscribed.
    @inlinable
    public func publisher(
        bufferingPolicy: FlowPublisherBufferingPolicy<Failure>,
        onDrop: (@Sendable (Element) -> Void)? = nil
    ) -> AnyPublisher<Element, Failure> {
        FlowPublisherAdapter(flow: self, policy: bufferingPolicy, onDrop: onDrop).eraseToAnyPublisher()
    }
}
#endif
