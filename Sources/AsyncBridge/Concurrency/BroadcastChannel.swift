/// How each consumer of a ``BroadcastChannel`` buffers the values it has not taken yet; a
/// full buffer drops a value and passes it to the channel's `onDrop` (the sender never waits).
///
/// AsyncStream: `AsyncStream.Continuation.BufferingPolicy`, the same three cases.
///
/// ```swift
/// let locations = BroadcastChannel<Location, Never>(bufferingPolicy: .bufferingNewest(1))
/// ```
public enum ChannelBufferingPolicy: Sendable, Hashable {
    /// Keeps every value until the consumer takes it. The default.
    ///
    /// ```swift
    /// let events = BroadcastChannel<Event, Never>(bufferingPolicy: .unbounded)
    /// ```
    case unbounded

    /// Keeps the newest `count` values: a value arriving at a full buffer evicts the oldest.
    ///
    /// ```swift
    /// let progress = BroadcastChannel<Double, Never>(bufferingPolicy: .bufferingNewest(1))
    /// ```
    case bufferingNewest(Int)

    /// Keeps the oldest `count` values: a value arriving at a full buffer is dropped.
    ///
    /// ```swift
    /// let firstTaps = BroadcastChannel<Tap, Never>(bufferingPolicy: .bufferingOldest(10))
    /// ```
    case bufferingOldest(Int)

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
        }
    }
}

/// A multi-shot bridge from callbacks to `for await`: send from any thread, consume with any
/// number of loops, each of which gets every value.
///
/// ```swift
/// func locationManager(_ manager: CLLocationManager, didUpdateLocations new: [CLLocation]) {
///     for location in new { locations.send(location) }
/// }
/// for try await location in delegate.locations { show(location) }
/// ```
///
/// RxSwift: `PublishSubject` and `values`; Combine: `PassthroughSubject.values`.
///
/// - Each consumer gets every value sent after its `makeAsyncIterator()`, in the order the
///   channel accepted the sends; await ``waitForConsumers(_:)`` to reach a loop started in a task.
/// - Values sent while no consumer iterates are kept, per the policy, for the next consumer.
/// - Each consumer has its own buffer; a slow one drops its own values (to `onDrop`).
/// - ``finish()`` and ``fail(_:)`` end every loop after its buffered values; a later consumer
///   gets the completion at once; later sends are ignored. Releasing the channel finishes it.
/// - Cancelling a consumer's task, or leaving its loop, ends that loop with `nil` and
///   discards its buffer; the others go on.
public final class BroadcastChannel<Element: Sendable, Failure: Error>: AsyncSequence, Sendable {
    @usableFromInline let storage: BroadcastChannelStorage<Element, Failure>

    /// Creates a channel whose consumers each buffer per `bufferingPolicy`; values the policy
    /// drops go to `onDrop` (once per consumer that drops them), on the sender's thread.
    ///
    /// ```swift
    /// let progress = BroadcastChannel<Double, any Error>(bufferingPolicy: .bufferingNewest(1))
    /// ```
    public init(
        bufferingPolicy: ChannelBufferingPolicy = .unbounded,
        onDrop: (@Sendable (Element) -> Void)? = nil
    ) {
        storage = BroadcastChannelStorage(limit: bufferingPolicy.limit, onDrop: onDrop)
    }

    /// Consumers hold the storage, not the channel: releasing the channel finishes them.
    deinit {
        storage.complete(.finished)
    }

    /// Sends a value to every consumer, from any thread; ignored after the completion. Never
    /// waits beyond the lock taken to buffer the value.
    ///
    /// AsyncStream: `Continuation.yield(_:)`; RxSwift: `onNext(_:)`; Combine: `send(_:)`.
    ///
    /// ```swift
    /// channel.send(location)   // from any thread
    /// ```
    @inlinable
    public func send(_ value: Element) {
        storage.send(value)
    }

    /// Finishes every consumer once it has taken its buffered values; only the first
    /// completion counts.
    ///
    /// AsyncStream: `Continuation.finish()`; Combine: `send(completion: .finished)`.
    ///
    /// ```swift
    /// channel.finish()
    /// ```
    public func finish() {
        storage.complete(.finished)
    }

    /// Fails every consumer once it has taken its buffered values: each loop throws `error`
    /// once. Only the first completion counts.
    ///
    /// AsyncThrowingStream: `Continuation.finish(throwing:)`; Combine:
    /// `send(completion: .failure(_:))`.
    ///
    /// ```swift
    /// channel.fail(APIError.offline)
    /// ```
    public func fail(_ error: Failure) {
        storage.complete(.failure(error))
    }

    /// Returns once at least `count` consumers iterate, or when the task is cancelled;
    /// consumers that have left do not count.
    ///
    /// ```swift
    /// await channel.waitForConsumers(2)   // both loops iterate: neither misses a value
    /// ```
    ///
    /// RxSwift and Combine: none (subscribers attach synchronously).
    ///
    /// - Parameter count: How many consumers to wait for; at least zero.
    public func waitForConsumers(_ count: Int = 1) async {
        checkCount(count, of: "waitForConsumers(_:)", atLeast: 0)
        await storage.waitForConsumers(count)
    }

    /// Starts a consumer: from now on it receives every value sent.
    ///
    /// ```swift
    /// var iterator = channel.makeAsyncIterator()
    /// ```
    @inlinable
    public func makeAsyncIterator() -> Iterator {
        Iterator(cursor: ConsumerCursor(lease: ConsumerLease(host: storage, id: storage.register())))
    }

    /// One consumer of a channel; releasing it makes the consumer leave.
    ///
    /// ```swift
    /// var iterator = channel.makeAsyncIterator()
    /// while let value = try await iterator.next() { print(value) }
    /// ```
    public struct Iterator: AsyncIteratorProtocol {
        @usableFromInline var cursor: ConsumerCursor<BroadcastChannelStorage<Element, Failure>>

        @inlinable
        init(cursor: ConsumerCursor<BroadcastChannelStorage<Element, Failure>>) {
            self.cursor = cursor
        }

        /// The next value, on the caller's actor; `nil` after the channel finished or the
        /// task was cancelled; throws the channel's failure once.
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

    /// The channel as a hot flow: each subscription is a consumer fed by a task of its own, so
    /// its handlers run on the cooperative pool; cancelling it leaves at once.
    ///
    /// ```swift
    /// channel.flow.subscribe(onValue: { print($0) }, onCompletion: { _ in }).store(in: bag)
    /// ```
    public var flow: Flow<Element, Failure> {
        Flow.create { [storage] emitter in
            let id = storage.register()
            let consumer = ChannelFlowConsumer(cursor: ConsumerCursor(lease: ConsumerLease(host: storage, id: id)))
            let task = Task {
                while let event = await consumer.next() {
                    guard emitter.drain.submit(event) else { return }
                }
            }
            emitter.onCancel {
                task.cancel()
                storage.cancel(id)  // leave now, not at the task's next pull: later sends skip it
            }
        }
    }
}

/// Hands a consumer, registered on the subscribing thread, to the task that feeds a channel's
/// flow. Unchecked Sendable: that task is its only user from then on.
@usableFromInline
final class ChannelFlowConsumer<Element: Sendable, Failure: Error>: @unchecked Sendable {
    @usableFromInline var cursor: ConsumerCursor<BroadcastChannelStorage<Element, Failure>>

    @usableFromInline
    init(cursor: ConsumerCursor<BroadcastChannelStorage<Element, Failure>>) {
        self.cursor = cursor
    }

    @inlinable
    func next() async -> FlowEvent<Element, Failure>? {
        await cursor.next(isolation: nil)
    }
}
