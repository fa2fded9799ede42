extension Flow {
    /// Maps each value to an inner flow and merges the inner flows' values into one flow.
    ///
    /// Useful for chaining asynchronous work: each value starts a request, and the requests'
    /// results come out as they arrive.
    ///
    /// ```swift
    /// let posts = userIDs.flatMap(maxConcurrent: 3) { id in api.posts(of: id) }
    /// ```
    ///
    /// - **Backpressure without loss.** At most `maxConcurrent` inner flows run at once. Values
    ///   that arrive while all slots are busy wait in a queue, in order, and start as slots free
    ///   up: none is dropped (Combine's `maxPublishers:` asks a demand-aware upstream for less
    ///   and loses what a subject sends meanwhile; RxSwift's `merge(maxConcurrent:)` queues, as
    ///   this does). The queue grows as fast as the outer flow outpaces the inners.
    /// - **When `transform` runs.** When a value's inner flow starts: at once if a slot is free,
    ///   otherwise when its turn comes (as in Combine, whose demand makes upstream send the value
    ///   only then; RxSwift's `concatMap` calls its selector on arrival). So a queued value's
    ///   work is built only when it is about to run. Calls to `transform` never overlap.
    /// - **Completion.** Finishes when the outer flow and every inner flow, running or queued,
    ///   have finished. An inner's own completion is not forwarded.
    /// - **Failure.** A failure of the outer flow or of any inner flow fails the result at once
    ///   and cancels the outer flow and every other inner, as RxSwift's `flatMap` does.
    ///   Combine's `flatMap` (as OpenCombine implements it) cancels the other inners but not
    ///   the outer subscription, whose later values it ignores; we cancel the outer too, since
    ///   nothing can use its values any more. To keep going when an inner fails, contain the
    ///   failure inside the inner flow:
    ///   `flatMap { fetch($0).asResult() }` (failing without terminating).
    /// - **Cancellation.** Cancelling the subscription, or a downstream that wants no more
    ///   values, cancels the outer flow and every running inner, and drops the queue.
    ///
    /// RxSwift: `flatMap` (`maxConcurrent: .max`), `map(_:).merge(maxConcurrent:)`;
    /// Combine: `flatMap(maxPublishers:_:)`.
    ///
    /// - Parameters:
    ///   - maxConcurrent: How many inner flows may run at once; at least 1. The default runs
    ///     every inner flow at once.
    ///   - transform: Makes the inner flow for a value.
    /// - Returns: A flow of the inner flows' values, in the order they arrive.
    @inlinable
    public func flatMap<NewElement>(
        maxConcurrent: Int = .max,
        _ transform: @escaping @Sendable (Element) -> Flow<NewElement, Failure>
    ) -> Flow<NewElement, Failure> {
        flatMap(strategy: .merge(maxConcurrent: maxConcurrent), transform)
    }

    /// Maps each value to an inner flow and runs the inner flows one at a time, in order: the
    /// next starts when the previous has finished. `flatMap(maxConcurrent: 1)`.
    ///
    /// Useful for serialising asynchronous work:
    /// requests that must not overlap, writes that must land in order.
    ///
    /// ```swift
    /// let saved = edits.concatMap { edit in api.save(edit) }
    /// ```
    ///
    /// Values that arrive while an inner flow runs wait in a queue; none is dropped. `transform`
    /// runs when a value's turn comes. Finishes when the outer flow and every inner flow have
    /// finished; any failure fails the result and cancels the rest (see
    /// ``flatMap(maxConcurrent:_:)``).
    ///
    /// RxSwift: `concatMap`; Combine: `flatMap(maxPublishers: .max(1))`, which, unlike this,
    /// drops values that a subject sends while an inner runs.
    ///
    /// - Parameter transform: Makes the inner flow for a value.
    /// - Returns: The inner flows' values, one inner flow after the other.
    @inlinable
    public func concatMap<NewElement>(
        _ transform: @escaping @Sendable (Element) -> Flow<NewElement, Failure>
    ) -> Flow<NewElement, Failure> {
        flatMap(strategy: .merge(maxConcurrent: 1), transform)
    }

    /// Like ``flatMap(maxConcurrent:_:)``, and `transform` also gets the value's index: 0 for the
    /// first value of each subscription, then 1, 2, …
    ///
    /// ```swift
    /// let pages = pageRequests.flatMapWithIndex { request, index in api.page(index, request) }
    /// ```
    ///
    /// RxSwift: `flatMapWithIndex` (deprecated in RxSwift 4 for `enumerated().flatMap`); Combine
    /// has no indexed `flatMap`.
    ///
    /// - Parameters:
    ///   - maxConcurrent: How many inner flows may run at once; at least 1.
    ///   - transform: Makes the inner flow for a value and its index.
    /// - Returns: A flow of the inner flows' values, in the order they arrive.
    @inlinable
    public func flatMapWithIndex<NewElement>(
        maxConcurrent: Int = .max,
        _ transform: @escaping @Sendable (Element, Int) -> Flow<NewElement, Failure>
    ) -> Flow<NewElement, Failure> {
        let upstream = self
        let indexed = Flow<(value: Element, index: Int), Failure> { subscriber in
            let next = SerialState(0)  // per subscription; outer values arrive one at a time
            let receive = subscriber.receive
            upstream.run(FlowSubscriber(
                subscription: subscriber.subscription,
                receive: { value in
                    let index = next.value
                    next.value += 1
                    return receive((value, index))
                },
                complete: subscriber.complete
            ))
        }
        return indexed.flatMap(strategy: .merge(maxConcurrent: maxConcurrent)) { transform($0.value, $0.index) }
    }

    /// The flatMap family's one implementation; the public operators choose the strategy.
    @inlinable
    func flatMap<NewElement>(
        strategy: FlatMapStrategy,
        _ transform: @escaping @Sendable (Element) -> Flow<NewElement, Failure>
    ) -> Flow<NewElement, Failure> {
        if case .merge(let maxConcurrent) = strategy {
            checkCount(maxConcurrent, of: "flatMap(maxConcurrent:_:)", named: "maxConcurrent", atLeast: 1)
        }
        let upstream = self
        return Flow<NewElement, Failure> { subscriber in
            FlatMapStorage(strategy: strategy, transform: transform, downstream: subscriber).subscribe(to: upstream)
        }
    }
}
