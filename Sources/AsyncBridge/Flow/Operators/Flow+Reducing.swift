extension FlowSubscriber {
    /// Sends `value`, if there is one, then finishes, unless the subscriber stopped or was
    /// cancelled while it handled the value (nothing comes after a cancellation has returned).
    @inlinable
    func finish(sending value: Element?) {
        if let value, receive(value) == .stop || subscription.isCancelled { return }
        complete(.finished)
    }

    /// This subscriber, for a flow subscribed once the subscriber may hold its token (after
    /// another flow ended, on a timer's task): each value also tells a synchronous source to
    /// stop when the subscriber cancelled from its handler, so nothing follows the cancellation.
    @inlinable
    var stoppingAtCancellation: FlowSubscriber {
        let receive = self.receive, subscription = self.subscription
        return FlowSubscriber(
            subscription: subscription,
            receive: { value in receive(value) == .more && !subscription.isCancelled ? .more : .stop },
            completeMarkingSubscription: complete
        )
    }
}

extension Flow {
    /// The one answer that the whole flow comes to: `step` sees each value with the
    /// subscription's `state` and returns the answer as soon as it is known (the upstream is then
    /// cancelled, before the answer is sent); otherwise `end` gives it from the state when the
    /// flow finishes (`nil`: finish without a value). A failure passes on; a failure thrown by
    /// `step` cancels the upstream and fails.
    @inlinable
    func fold<State: Sendable, Answer: Sendable>(
        _ initial: State,
        step: @escaping @Sendable (inout State, Element) throws(Failure) -> Answer?,
        end: @escaping @Sendable (State) -> Answer?
    ) -> Flow<Answer, Failure> {
        let upstream = self
        return Flow<Answer, Failure> { subscriber in
            let upstreamSubscription = subscriber.subscription.child()
            let state = SerialState<State?>(initial)  // nil once answered
            upstream.run(FlowSubscriber(
                subscription: upstreamSubscription,
                receive: { value in
                    guard state.value != nil else { return .stop }
                    let answer: Answer?
                    do throws(Failure) {
                        answer = try step(&state.value!, value)  // in place: no copy of a collected array
                    } catch {
                        state.value = nil
                        upstreamSubscription.cancel()
                        subscriber.complete(.failure(error))
                        return .stop
                    }
                    guard let answer else { return .more }
                    state.value = nil
                    upstreamSubscription.cancel()
                    subscriber.finish(sending: answer)
                    return .stop
                },
                complete: { completion in
                    guard let final = state.value else { return }
                    state.value = nil
                    switch completion {
                    case .finished: subscriber.finish(sending: end(final))
                    case .failure(let error): subscriber.complete(.failure(error))
                    }
                }
            ))
        }
    }

    /// Passes each value on through `transform`; when this flow completes, `onCompletion` decides
    /// what follows, told whether any value came. The upstream runs under a child subscription,
    /// so what `onCompletion` runs for the subscriber can still be cancelled.
    @inlinable
    func passing<NewElement, NewFailure>(
        _ transform: @escaping @Sendable (Element) -> NewElement,
        onCompletion: @escaping @Sendable (FlowCompletion<Failure>, _ sentValues: Bool, FlowSubscriber<NewElement, NewFailure>) -> Void
    ) -> Flow<NewElement, NewFailure> {
        let upstream = self
        return Flow<NewElement, NewFailure> { subscriber in
            let sentValues = SerialState(false)
            let receive = subscriber.receive
            upstream.run(FlowSubscriber(
                subscription: subscriber.subscription.child(),
                receive: { value in
                    sentValues.value = true
                    return receive(transform(value))
                },
                complete: { completion in onCompletion(completion, sentValues.value, subscriber) }
            ))
        }
    }

    /// Folds every value into one result, sent when the flow finishes; `initial` when it
    /// finishes without a value. A failure passes on, with no result.
    ///
    /// ```swift
    /// let total = amounts.reduce(0, +)
    /// ```
    ///
    /// RxSwift: `reduce(_:accumulator:)`; Combine: `reduce(_:_:)`, `tryReduce(_:_:)`.
    ///
    /// `accumulate` may throw the flow's `Failure` (say so: `{ sum, x throws(APIError) in … }`);
    /// the upstream is then cancelled and the flow fails.
    @inlinable
    public func reduce<Result: Sendable>(
        _ initial: Result,
        _ accumulate: @escaping @Sendable (Result, Element) throws(Failure) -> Result
    ) -> Flow<Result, Failure> {
        fold(initial, step: { (result: inout Result, value: Element) throws(Failure) -> Result? in
            result = try accumulate(result, value)
            return nil
        }, end: { $0 })
    }

    /// All the values, as one array, when the flow finishes; `[]` when it finishes without a
    /// value. A failure passes on, with no array.
    ///
    /// RxSwift: `toArray()` (a `Single`); Combine: `collect()`.
    ///
    /// ```swift
    /// let allPages = pages.collect()   // Flow<[Page], APIError>
    /// ```
    @inlinable
    public func collect() -> Flow<[Element], Failure> {
        fold([Element](), step: { (values: inout [Element], value: Element) -> [Element]? in
            values.append(value)
            return nil
        }, end: { $0 })
    }

    /// How many values came, when the flow finishes (`0` for none). A failure passes on.
    ///
    /// RxSwift: `reduce(0) { count, _ in count + 1 }`; Combine: `count()`.
    ///
    /// ```swift
    /// let messageCount = messages.count()
    /// ```
    @inlinable
    public func count() -> Flow<Int, Failure> {
        fold(0, step: { (count: inout Int, _: Element) -> Int? in
            count += 1
            return nil
        }, end: { $0 })
    }

    /// `true` as soon as a value satisfies `predicate`, then finished, with the upstream
    /// cancelled before `true` is sent; `false` if the flow finishes without one. A failure
    /// before the answer passes on.
    ///
    /// RxSwift: none (`filter(_:).take(1)` and a default); Combine: `contains(where:)`,
    /// `tryContains(where:)`.
    ///
    /// `predicate` may throw the flow's `Failure`: the upstream is cancelled and the flow fails.
    ///
    /// ```swift
    /// let hasErrors = results.contains { $0.isFailure }
    /// ```
    @inlinable
    public func contains(where predicate: @escaping @Sendable (Element) throws(Failure) -> Bool) -> Flow<Bool, Failure> {
        fold((), step: { (_: inout Void, value: Element) throws(Failure) -> Bool? in
            try predicate(value) ? true : nil
        }, end: { _ in false })
    }

    /// `true` if every value satisfies `predicate` (also when none came), sent when the flow
    /// finishes; `false` as soon as one does not, then finished, with the upstream cancelled
    /// before `false` is sent (Combine's order; see ``contains(where:)``). A failure before the
    /// answer passes on; `predicate` may throw the flow's `Failure`.
    ///
    /// RxSwift: `allSatisfy(_:)` (a `Single`); Combine: `allSatisfy(_:)`, `tryAllSatisfy(_:)`.
    ///
    /// ```swift
    /// let allValid = fields.allSatisfy { $0.isValid }
    /// ```
    @inlinable
    public func allSatisfy(_ predicate: @escaping @Sendable (Element) throws(Failure) -> Bool) -> Flow<Bool, Failure> {
        fold((), step: { (_: inout Void, value: Element) throws(Failure) -> Bool? in
            try predicate(value) ? nil : false
        }, end: { _ in true })
    }

    /// The least value, by `areInIncreasingOrder`, when the flow finishes (the first of equal
    /// ones, as `Sequence.min(by:)`); finished with no value when none came. A failure passes
    /// on; `areInIncreasingOrder` may throw the flow's `Failure`.
    ///
    /// RxSwift: none (`reduce`); Combine: `min(by:)`, `tryMin(by:)`.
    ///
    /// ```swift
    /// let cheapest = offers.min { $0.price < $1.price }
    /// ```
    @inlinable
    public func min(by areInIncreasingOrder: @escaping @Sendable (Element, Element) throws(Failure) -> Bool) -> Flow {
        max { (a, b) throws(Failure) in try areInIncreasingOrder(b, a) }  // as Combine: the first of equal ones
    }

    /// The greatest value, by `areInIncreasingOrder`, when the flow finishes (the first of
    /// equal ones, as `Sequence.max(by:)`); finished with no value when none came. A failure
    /// passes on; `areInIncreasingOrder` may throw the flow's `Failure`.
    ///
    /// RxSwift: none (`reduce`); Combine: `max(by:)`, `tryMax(by:)`.
    ///
    /// ```swift
    /// let latest = edits.max { $0.date < $1.date }
    /// ```
    @inlinable
    public func max(by areInIncreasingOrder: @escaping @Sendable (Element, Element) throws(Failure) -> Bool) -> Flow {
        fold(Element?.none, step: { (greatest: inout Element?, value: Element) throws(Failure) -> Element? in
            if let current = greatest, try !areInIncreasingOrder(current, value) { return nil }
            greatest = value
            return nil
        }, end: { $0 })
    }

    /// The last value that satisfies `predicate`, when the flow finishes; finished with no
    /// value when none did. A failure passes on, with no value; `predicate` may throw the
    /// flow's `Failure`.
    ///
    /// RxSwift: `filter(_:).takeLast(1)`; Combine: `last(where:)`, `tryLast(where:)`.
    ///
    /// ```swift
    /// let lastError = log.last { $0.level == .error }
    /// ```
    @inlinable
    public func last(where predicate: @escaping @Sendable (Element) throws(Failure) -> Bool) -> Flow {
        fold(Element?.none, step: { (last: inout Element?, value: Element) throws(Failure) -> Element? in
            if try predicate(value) { last = value }
            return nil
        }, end: { $0 })
    }

    /// The last value, when the flow finishes; finished with no value when none came. A
    /// failure passes on, with no value.
    ///
    /// RxSwift: `takeLast(1)`; Combine: `last()`.
    ///
    /// ```swift
    /// let finalProgress = progress.last()
    /// ```
    @inlinable
    public func last() -> Flow {
        last { _ in true }
    }

    /// Only the completion: no value, then finished or failed as this flow does.
    ///
    /// RxSwift: `ignoreElements()` (a `Completable`); Combine: `ignoreOutput()`.
    ///
    /// ```swift
    /// let saved = upload.ignoreOutput()   // Flow<Never, APIError>
    /// ```
    @inlinable
    public func ignoreOutput() -> Flow<Never, Failure> {
        compactMap { _ -> Never? in nil }
    }

    /// This flow's values; if it finishes without one, `value`, then finished. A failure passes
    /// on.
    ///
    /// RxSwift: `ifEmpty(default:)`; Combine: `replaceEmpty(with:)`.
    ///
    /// ```swift
    /// let results = search.replaceEmpty(with: [])
    /// ```
    @inlinable
    public func replaceEmpty(with value: Element) -> Flow {
        passing({ $0 }) { completion, sentValues, subscriber in
            switch completion {
            case .finished: subscriber.finish(sending: sentValues ? nil : value)
            case .failure(let error): subscriber.complete(.failure(error))
            }
        }
    }

    /// This flow's values; if it finishes without one, `other`'s values and completion instead
    /// (`other` is subscribed only then). A failure passes on, and `other` is not subscribed.
    ///
    /// RxSwift: `ifEmpty(switchTo:)`; Combine: none.
    ///
    /// ```swift
    /// let avatar = cache.avatar.ifEmpty(switchTo: api.downloadAvatar())
    /// ```
    @inlinable
    public func ifEmpty(switchTo other: Flow) -> Flow {
        passing({ $0 }) { completion, sentValues, subscriber in
            switch completion {
            case .finished where !sentValues: other.run(subscriber.stoppingAtCancellation)
            case .finished: subscriber.complete(.finished)
            case .failure(let error): subscriber.complete(.failure(error))
            }
        }
    }
}

extension Flow where Element: Equatable {
    /// `true` as soon as a value equals `element`, then finished, with the upstream cancelled;
    /// `false` if the flow finishes without one. See ``contains(where:)``.
    ///
    /// RxSwift: none; Combine: `contains(_:)`.
    ///
    /// ```swift
    /// let sawAdmin = roles.contains(.admin)
    /// ```
    @inlinable
    public func contains(_ element: Element) -> Flow<Bool, Failure> {
        contains { $0 == element }
    }
}

extension Flow where Element: Comparable {
    /// The least value when the flow finishes; finished with no value when none came.
    /// See ``min(by:)``.
    ///
    /// RxSwift: none (`reduce`); Combine: `min()`.
    ///
    /// ```swift
    /// let lowest = temperatures.min()
    /// ```
    @inlinable
    public func min() -> Flow {
        min { $0 < $1 }
    }

    /// The greatest value when the flow finishes; finished with no value when none came.
    /// See ``max(by:)``.
    ///
    /// RxSwift: none (`reduce`); Combine: `max()`.
    ///
    /// ```swift
    /// let highest = temperatures.max()
    /// ```
    @inlinable
    public func max() -> Flow {
        max { $0 < $1 }
    }
}
