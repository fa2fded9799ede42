/// How `flow.values` buffers the values its consumer has not taken yet, and what it does when
/// the buffer is full.
///
/// ```swift
/// for await location in locations.values(bufferingPolicy: .bufferingNewest(1)) { await render(location) }
/// ```
///
/// AsyncStream: `AsyncStream.Continuation.BufferingPolicy`; Combine: `buffer(size:prefetch:whenFull:)`.
public enum FlowBufferingPolicy: Sendable, Hashable {
    /// Keeps every value until the consumer takes it. The default.
    ///
    /// ```swift
    /// let all = flow.values(bufferingPolicy: .unbounded)
    /// ```
    case unbounded

    /// Keeps the newest `count` values; the evicted oldest goes to `onDrop`. `0` delivers a
    /// value only to a consumer already waiting.
    ///
    /// ```swift
    /// let latest = progress.values(bufferingPolicy: .bufferingNewest(1))
    /// ```
    case bufferingNewest(Int)

    /// Keeps the oldest `count` values; a value arriving at a full buffer goes to `onDrop`.
    ///
    /// ```swift
    /// let firstTen = flow.values(bufferingPolicy: .bufferingOldest(10))
    /// ```
    case bufferingOldest(Int)

    /// Keeps up to `limit` values, then blocks the sending thread until the consumer takes one;
    /// nothing is dropped.
    ///
    /// ```swift
    /// for try await line in lines.values(bufferingPolicy: .blockingProducer(limit: 64)) { try await upload(line) }
    /// ```
    ///
    /// swift-async-algorithms: `AsyncChannel` (which suspends an async `send` instead).
    ///
    /// Blocks only a thread that runs no Swift task and is not the main thread, and only after
    /// the flow's subscribe has returned; anywhere else the buffer grows beyond `limit`. Do not
    /// use it when the consumer runs on the producer's thread. A held producer is released
    /// when the consumer takes a value or leaves; the bound holds per delivering thread. See
    /// <doc:Concurrency>.
    case blockingProducer(limit: Int)

    @inlinable
    var limit: BufferLimit {
        switch self {
        case .unbounded:
            return .unbounded
        case .bufferingNewest(let count):
            checkCount(count, of: ".bufferingNewest(_:)", atLeast: 0)
            return .newest(count)
        case .bufferingOldest(let count):
            checkCount(count, of: ".bufferingOldest(_:)", atLeast: 0)
            return .oldest(count)
        case .blockingProducer(let limit):
            checkCount(limit, of: ".blockingProducer(limit:)", named: "limit", atLeast: 1)
            return .blocking(limit)
        }
    }
}

extension Flow where Element: Sendable {
    /// The flow's values as an `AsyncSequence` that throws the flow's typed `Failure`, with
    /// an unbounded buffer (see ``FlowValues``).
    ///
    /// ```swift
    /// for await name in names.values { print(name) }   // Failure == Never: no `try`
    /// ```
    ///
    /// RxSwift: `values`; Combine: `values` (which drops a value sent while the body runs).
    @inlinable
    public var values: FlowValues<Element, Failure> {
        FlowValues(flow: self, limit: .unbounded, onDrop: nil)
    }

    /// The flow's values as an `AsyncSequence`, buffered by `bufferingPolicy`.
    ///
    /// ```swift
    /// for await reading in sensor.values(bufferingPolicy: .bufferingNewest(8), onDrop: { log.debug("\($0)") }) { }
    /// ```
    ///
    /// AsyncStream: `AsyncStream(bufferingPolicy:)` (which drops silently).
    ///
    /// Each value the policy drops goes to `onDrop`, on the producer's thread, outside the lock.
    /// Values still buffered when the iteration ends early are discarded without `onDrop`.
    @inlinable
    public func values(
        bufferingPolicy: FlowBufferingPolicy,
        onDrop: (@Sendable (Element) -> Void)? = nil
    ) -> FlowValues<Element, Failure> {
        FlowValues(flow: self, limit: bufferingPolicy.limit, onDrop: onDrop)
    }
}

/// A flow's values as an `AsyncSequence` whose `Failure` is the flow's: made by
/// ``Flow/values`` and ``Flow/values(bufferingPolicy:onDrop:)``.
///
/// ```swift
/// for await value in subject.flow.values { print(value) }
/// ```
///
/// RxSwift: `Observable.values`; Combine: `Publisher.values`.
///
/// - `makeAsyncIterator()` subscribes, so a cold flow runs once per loop (share it for one
///   run), and a hot flow's values sent after that call are all received.
/// - Finishing ends the sequence; a failure is thrown once, then `nil`.
/// - Cancelling the task ends the sequence with `nil` (buffered values are discarded) and
///   cancels the subscription; so does leaving the loop early.
/// - The flow may send from any thread.
public struct FlowValues<Element: Sendable, Failure: Error>: AsyncSequence, Sendable {
    @usableFromInline let flow: Flow<Element, Failure>
    @usableFromInline let limit: BufferLimit
    @usableFromInline let onDrop: (@Sendable (Element) -> Void)?

    @inlinable
    init(flow: Flow<Element, Failure>, limit: BufferLimit, onDrop: (@Sendable (Element) -> Void)?) {
        self.flow = flow
        self.limit = limit
        self.onDrop = onDrop
    }

    /// Subscribes to the flow and returns the iterator that pulls its values.
    ///
    /// ```swift
    /// var iterator = flow.values.makeAsyncIterator()   // subscribed from here on
    /// let first = await iterator.next()
    /// ```
    @inlinable
    public func makeAsyncIterator() -> Iterator {
        let storage = FlowValuesStorage<Element, Failure>(limit: limit, onDrop: onDrop)
        let iterator = Iterator(cursor: ConsumerCursor(lease: ConsumerLease(host: storage, id: 0)))
        storage.start(flow)
        return iterator
    }

    /// Pulls one iteration's values; releasing it cancels the subscription.
    ///
    /// ```swift
    /// var iterator = flow.values.makeAsyncIterator()
    /// while let value = try await iterator.next() { print(value) }
    /// ```
    public struct Iterator: AsyncIteratorProtocol {
        @usableFromInline var cursor: ConsumerCursor<FlowValuesStorage<Element, Failure>>

        @inlinable
        init(cursor: ConsumerCursor<FlowValuesStorage<Element, Failure>>) {
            self.cursor = cursor
        }

        /// The next value, on the caller's actor; `nil` when the flow finished or the task
        /// was cancelled; throws the flow's failure once.
        ///
        /// ```swift
        /// let value = try await iterator.next(isolation: #isolation)
        /// ```
        @inlinable @inline(__always)
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(Failure) -> Element? {
            try await cursor.nextElement(isolation: actor)
        }

        /// The next value, as ``next(isolation:)`` but not isolated to the caller's actor.
        ///
        /// ```swift
        /// let value = try await iterator.next()
        /// ```
        @inlinable
        public mutating func next() async throws(Failure) -> Element? {
            try await next(isolation: nil)
        }
    }
}
