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
    /// - At most `maxConcurrent` inner flows run at once. Later values wait in an unbounded
    ///   queue, in order, and start as slots free up: none is dropped (unlike with Combine's
    ///   `maxPublishers:`; see <doc:FlatMap>).
    /// - `transform` runs when a value's inner flow starts (for a queued value, when its turn
    ///   comes); its calls never overlap.
    /// - Finishes when the outer flow and every inner flow, running or queued, have finished; an
    ///   inner's own completion is not forwarded.
    /// - A failure of the outer flow or of any inner fails the result at once and cancels the
    ///   outer flow and every other inner. To keep going, contain it inside the inner flow:
    ///   `flatMap { fetch($0).asResult() }`.
    /// - Cancelling the subscription, or a downstream that wants no more values, cancels the
    ///   outer flow and every running inner, and drops the queue.
    ///
    /// RxSwift: `flatMap` (`maxConcurrent: .max`), `map(_:).merge(maxConcurrent:)`;
    /// Combine: `flatMap(maxPublishers:_:)`.
    ///
    /// - Parameters:
    ///   - maxConcurrent: How many inner flows may run at once; at least 1. The default runs
    ///     every inner flow at once.
    ///   - transform: Makes the inner flow for a value.
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
    /// Useful for serialising asynchronous work: requests that must not overlap, writes that
    /// must land in order.
    ///
    /// ```swift
    /// let saved = edits.concatMap { edit in api.save(edit) }
    /// ```
    ///
    /// Values that arrive while an inner flow runs wait in a queue; none is dropped. `transform`
    /// runs when a value's turn comes. Completion, failure and cancellation as for
    /// ``flatMap(maxConcurrent:_:)``.
    ///
    /// RxSwift: `concatMap`; Combine: `flatMap(maxPublishers: .max(1))`, which, unlike this,
    /// drops values that a subject sends while an inner runs.
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
