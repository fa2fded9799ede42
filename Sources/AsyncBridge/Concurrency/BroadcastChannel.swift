/// How each consumer of a ``BroadcastChannel`` buffers the values it has not taken yet.
///
/// A channel never holds its sender, so there is no policy that waits for room: a full buffer
/// drops a value and passes it to the channel's `onDrop`. (`flow.values` can also hold its
/// producer: see ``FlowBufferingPolicy``.)
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
/// Useful for delegates and event handlers: the callback calls ``send(_:)``, which never
/// blocks or waits, and async code iterates.
///
/// ```swift
/// final class LocationDelegate: NSObject, CLLocationManagerDelegate {
///     let locations = BroadcastChannel<CLLocation, any Error>()
///     func locationManager(_ manager: CLLocationManager, didUpdateLocations new: [CLLocation]) {
///         for location in new { locations.send(location) }
///     }
///     func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error) {
///         locations.fail(error)
///     }
/// }
/// for try await location in delegate.locations { show(location) }
/// ```
///
/// - **Broadcast.** Every consumer (every loop, every iterator) receives every value sent
///   after it started iterating — after `makeAsyncIterator()`, which `for await` calls as
///   the loop starts — in the order the channel accepted the sends. A loop started in a
///   `Task` may start after a send made right after creating the task: to reach it, await
///   ``waitForConsumers(_:)`` before sending. Concurrent sends from
///   several threads are ordered by who got the lock first, the same order for every
///   consumer; the sends of one thread keep their program order.
/// - **Nothing lost before the first loop.** Values sent while no consumer iterates are kept,
///   per the buffering policy, for the next consumer to start (only that one: they are not
///   replayed to later consumers). So a delegate that fires before the `for await` starts
///   loses nothing, as with `AsyncStream`.
/// - **Buffering per consumer.** Each consumer has its own buffer with the channel's policy;
///   a slow consumer drops (and reports to `onDrop`) its own values, without holding up the
///   sender or the other consumers.
/// - **Completion.** ``finish()`` ends every loop once it has taken its buffered values;
///   ``fail(_:)`` throws the typed failure to each, once, then `nil`. A consumer that starts
///   after the completion gets it at once (after the values kept for it, if it is the first
///   consumer since they were sent). Later sends are ignored. Releasing the channel
///   finishes it.
/// - **Cancellation.** Cancelling a consumer's task ends that loop (`nil`, as `AsyncStream`
///   does) and discards its buffer; leaving a loop (`break`) or releasing an iterator does
///   the same. The channel and the other consumers go on.
///
/// RxSwift: a `PublishSubject` consumed with `values` (which loses what is sent before the
/// loop); Combine: `PassthroughSubject.values`; AsyncStream: its continuation, but
/// `AsyncStream` allows one consumer only; swift-async-algorithms: `AsyncChannel`, whose
/// `send` is async and waits for a consumer.
public final class BroadcastChannel<Element: Sendable, Failure: Error>: AsyncSequence, Sendable {
    @usableFromInline let storage: BroadcastChannelStorage<Element, Failure>

    /// Creates a channel whose consumers each buffer per `bufferingPolicy`; values the policy
    /// drops are passed to `onDrop` (once per consumer that drops them), on the sender's
    /// thread.
    ///
    /// ```swift
    /// let taps = BroadcastChannel<Tap, Never>()
    /// let progress = BroadcastChannel<Double, any Error>(bufferingPolicy: .bufferingNewest(1)) { skipped in
    ///     log.debug("skipped \(skipped)")
    /// }
    /// ```
    public init(
        bufferingPolicy: ChannelBufferingPolicy = .unbounded,
        onDrop: (@Sendable (Element) -> Void)? = nil
    ) {
        storage = BroadcastChannelStorage(limit: bufferingPolicy.limit, onDrop: onDrop)
    }

    /// Releasing the channel finishes it: no loop waits for values that nobody can send any
    /// more. (Consumers hold the channel's buffers, not the channel.)
    deinit {
        storage.complete(.finished)
    }

    /// Sends a value to every consumer; ignored after the completion. Never blocks: it takes
    /// the channel's lock for as long as it takes to buffer the value for each consumer.
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

    /// Returns once at least `count` consumers iterate (at once if they already do), or when
    /// the calling task is cancelled. A consumer receives only what is sent after it started,
    /// so a sender that must reach loops started in other tasks waits for them first.
    /// Consumers that have left do not count.
    ///
    /// ```swift
    /// let summary = Task { for await event in channel { log(event) } }
    /// let detail = Task { for await event in channel { show(event) } }
    /// await channel.waitForConsumers(2)   // both loops iterate: neither misses a value
    /// channel.send(.loaded)
    /// ```
    ///
    /// RxSwift and Combine have no equivalent: a subject's subscribers attach synchronously.
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
    /// channel.send(1)
    /// let one = try await iterator.next()   // 1
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

        /// The next value; `nil` after the channel finished or the task was cancelled; throws
        /// the channel's failure once.
        ///
        /// ```swift
        /// let value = try await iterator.next()
        /// ```
        @inlinable
        public mutating func next() async throws(Failure) -> Element? {
            try await next(isolation: nil)
        }
    }

    /// The channel as a hot flow: each subscription is a consumer (it starts when it
    /// subscribes, the first one gets the values kept while nobody consumed), fed by a task
    /// of its own, so its handlers run on the cooperative pool, never on the sender's thread.
    /// Cancelling the subscription makes the consumer leave at once.
    ///
    /// ```swift
    /// channel.flow.map(\.coordinate).receive(on: MainActor.shared).subscribe(onValue: { pin.move(to: $0) }, onCompletion: { _ in }).store(in: bag)
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
            return {
                task.cancel()
                storage.cancel(id)  // leave now, not when the task next asks: a value sent from
                                    // here on goes to the other consumers, or is kept for the next
            }
        }
    }
}

/// Hands a consumer, registered on the subscribing thread, to the task that feeds a
/// channel's flow: the task is its only user from then on.
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
