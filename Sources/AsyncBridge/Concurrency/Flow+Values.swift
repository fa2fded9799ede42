/// How `flow.values` buffers the values its consumer has not taken yet, and what it does when
/// the buffer is full.
///
/// AsyncStream: `AsyncStream.Continuation.BufferingPolicy` (the first three cases);
/// swift-async-algorithms: `AsyncChannel` holds its producer (as `.blockingProducer` does,
/// but suspending an async `send` instead of blocking a thread).
///
/// ```swift
/// for await location in locations.values(bufferingPolicy: .bufferingNewest(1)) {
///     await render(location)   // always the latest; older ones are skipped while it renders
/// }
/// ```
public enum FlowBufferingPolicy: Sendable, Hashable {
    /// Keeps every value until the consumer takes it. The default.
    ///
    /// ```swift
    /// let all = flow.values(bufferingPolicy: .unbounded)
    /// ```
    case unbounded

    /// Keeps the newest `count` values: a value arriving at a full buffer evicts the oldest,
    /// which goes to `onDrop`. `0` keeps none: a value is delivered only to a consumer
    /// already waiting for one.
    ///
    /// ```swift
    /// let latest = progress.values(bufferingPolicy: .bufferingNewest(1))
    /// ```
    case bufferingNewest(Int)

    /// Keeps the oldest `count` values: a value arriving at a full buffer is dropped and goes
    /// to `onDrop`.
    ///
    /// ```swift
    /// let firstTen = flow.values(bufferingPolicy: .bufferingOldest(10))
    /// ```
    case bufferingOldest(Int)

    /// Keeps up to `limit` values, then holds the producer — blocks the thread it sends on —
    /// until the consumer takes one; nothing is dropped.
    ///
    /// A `Flow` pushes values synchronously, so holding its producer means blocking the
    /// thread that delivers them. That is safe only on a thread of its own, so the producer
    /// is held only when it sends
    /// - from a thread that runs no Swift task (a `Thread`, a `DispatchQueue(label:)`, a
    ///   callback thread of a C or Objective-C API), not from the cooperative pool or an
    ///   actor, where blocking could starve the consumer it waits for;
    /// - not from the main thread (a consumer on the main actor needs it);
    /// - not while the subscription is being made, from any thread: until the flow's
    ///   subscribe, which `makeAsyncIterator()` runs, has returned. A source that emits
    ///   synchronously when subscribed (`Flow.sequence`, `just`, a subject's replay) emits on
    ///   the consumer's own thread, and a source whose subscribe waits for the thread that
    ///   sends (a `DispatchQueue.async` and a semaphore) would wait for itself.
    ///
    /// Anywhere else the buffer grows beyond `limit` instead, so nothing is lost and nothing
    /// deadlocks. Once the subscribe has returned, a producer that may be held waits until
    /// the consumer has taken the buffer below `limit`, values kept beyond it included. Do not
    /// use this policy when the producer's thread is the one the consumer runs on (an actor
    /// with a custom executor on that thread's queue): it would wait for itself. A held
    /// producer is released when the consumer takes a value or leaves: at once for a `break`
    /// or a cancellation while the loop waits in `next()`; for a task cancelled while the
    /// loop body runs, when the body returns and the loop asks again (so the body must not
    /// wait for the held thread). Then it finds the subscription cancelled and stops.
    ///
    /// Only the thread that is delivering is held. Values that other threads send meanwhile
    /// wait in the flow's serialising queue, which is not bounded by `limit`: with several
    /// producer threads, the bound holds per delivering thread, not overall. On a shared flow
    /// (`share()`), one thread delivers to every consumer, so the slowest consumer with this
    /// policy holds the others too.
    ///
    /// ```swift
    /// let lines = Flow<String, any Error>.create { emitter in
    ///     Thread { reader.forEachLine { emitter.send($0) }; emitter.finish() }.start()
    /// }
    /// for try await line in lines.values(bufferingPolicy: .blockingProducer(limit: 64)) {
    ///     try await upload(line)   // the reading thread waits while 64 lines are pending
    /// }
    /// ```
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
    /// an unbounded buffer.
    ///
    /// A `Flow<Element, Never>` needs no `try`:
    ///
    /// ```swift
    /// for await name in names.values { print(name) }
    /// do {
    ///     for try await user in users.values { show(user) }   // throws APIError
    /// } catch {
    ///     show(error)
    /// }
    /// ```
    ///
    /// See ``FlowValues`` for when the subscription starts and ends.
    ///
    /// RxSwift: `values`; Combine: `values`. They disagree on a value sent while the loop's
    /// body runs: RxSwift buffers it (an unbounded `AsyncThrowingStream`), Combine's
    /// `AsyncPublisher` demands one value at a time, so a `PassthroughSubject` drops it. We
    /// buffer, as RxSwift does; ``values(bufferingPolicy:onDrop:)`` chooses otherwise.
    @inlinable
    public var values: FlowValues<Element, Failure> {
        FlowValues(flow: self, limit: .unbounded, onDrop: nil)
    }

    /// The flow's values as an `AsyncSequence`, buffered by `bufferingPolicy`.
    ///
    /// Dropped values are never lost silently: each value the policy drops (the new one with
    /// `.bufferingOldest`, the evicted oldest with `.bufferingNewest`) is passed to `onDrop`,
    /// on the producer's thread, after the buffer's lock is released. Values still buffered
    /// when the iteration ends early (a `break`, a cancelled task) are discarded without
    /// `onDrop`: the consumer chose to stop.
    ///
    /// ```swift
    /// let readings = sensor.values(bufferingPolicy: .bufferingNewest(8), onDrop: { skipped in
    ///     log.debug("skipped \(skipped)")
    /// })
    /// for await reading in readings { await process(reading) }
    /// ```
    ///
    /// AsyncStream: `AsyncStream(bufferingPolicy:)` (which drops silently).
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
/// - **One subscription per iteration.** `makeAsyncIterator()` (which `for await` calls as
///   the loop starts) subscribes to the flow, so a cold flow runs once per loop, and a hot
///   flow's values sent after that call are all received, even before the first `next()`.
///   To give many consumers one run, share it first: `flow.share().values`.
/// - **The end.** The flow finishing ends the sequence (`nil`); the flow failing throws its
///   `Failure` once, then `nil`.
/// - **Cancellation, both ways.** Cancelling the consuming task ends the sequence: the next
///   `next()`, or the one suspended, returns `nil` (as `AsyncStream` does; unlike
///   `AsyncStream`, values still buffered are discarded rather than handed out first) and
///   the subscription is cancelled, which runs the source's cancel action. Leaving the loop
///   early (`break`, `return`, a thrown error) releases the iterator, which cancels the
///   subscription too. A typed `Failure` cannot carry cancellation, so a cancelled
///   iteration just ends.
/// - **Threads.** The flow may send from any thread. With the unbounded policy the consumer
///   takes everything buffered in one step and hands it out without locking; a `next()`
///   that finds a value buffered does not suspend.
///
/// ```swift
/// let subject = LiveSubject<Int, Never>()
/// Task {
///     for await value in subject.flow.values { print(value) }
///     print("done")
/// }
/// ```
///
/// RxSwift: `Observable.values`; Combine: `Publisher.values`; the `AsyncStream` built by
/// hand around a subscription.
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

        /// The next value; `nil` when the flow finished or the task was cancelled; throws the
        /// flow's failure once.
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
