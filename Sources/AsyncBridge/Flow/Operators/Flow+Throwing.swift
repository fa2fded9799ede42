// Throwing transforms: the closure throws the flow's own `Failure`, so the flow keeps its exact
// failure type; widening to `any Error` is written out (`setFailureType(to:)`). `map`, `filter`
// and `scan` stay non-throwing: a throwing step needs a child subscription per subscription.

extension Flow {
    /// The operator behind the `try…` transforms: `makeStep` makes, per subscription, the step
    /// that handles one value (sending through its second argument). A throw cancels the
    /// upstream, then fails the flow with the error; nothing passes after it.
    @inlinable
    func tryTransform<NewElement>(
        _ makeStep: @escaping @Sendable () -> @Sendable (Element, (NewElement) -> FlowDemand) throws(Failure) -> FlowDemand
    ) -> Flow<NewElement, Failure> {
        let upstream = self
        return Flow<NewElement, Failure> { subscriber in
            let upstreamSubscription = subscriber.subscription.child()
            let step = makeStep()
            let receive = subscriber.receive
            upstream.run(FlowSubscriber(
                subscription: upstreamSubscription,
                receive: { value in
                    do throws(Failure) {
                        return try step(value, receive)
                    } catch {
                        upstreamSubscription.cancel()  // nothing comes from it after this
                        subscriber.complete(.failure(error))
                        return .stop
                    }
                },
                complete: subscriber.complete
            ))
        }
    }

    /// Transforms each value with a closure that may throw the flow's failure; a throw cancels
    /// the upstream and fails the flow with that error.
    ///
    /// ```swift
    /// let bodies = responses.tryMap { response throws(APIError) in
    ///     guard response.status == 200 else { throw .status(response.status) }
    ///     return response.body
    /// }
    /// ```
    ///
    /// RxSwift: `map` with a throwing closure; Combine: `tryMap` (which widens to `any Error`).
    ///
    /// A closure that throws untyped errors needs `setFailureType(to: (any Error).self)` first.
    /// The upstream is cancelled before the failure is delivered.
    @inlinable
    public func tryMap<NewElement>(
        _ transform: @escaping @Sendable (Element) throws(Failure) -> NewElement
    ) -> Flow<NewElement, Failure> {
        tryTransform { { value, send throws(Failure) in try send(transform(value)) } }
    }

    /// Transforms each value with a closure that may throw the flow's failure, and drops the
    /// `nil`s; a throw cancels the upstream and fails the flow (see ``tryMap(_:)``).
    ///
    /// RxSwift: `compactMap` with a throwing closure; Combine: `tryCompactMap`.
    ///
    /// ```swift
    /// let ids = rows.tryCompactMap { row throws(DBError) in try row.optionalID() }
    /// ```
    @inlinable
    public func tryCompactMap<NewElement>(
        _ transform: @escaping @Sendable (Element) throws(Failure) -> NewElement?
    ) -> Flow<NewElement, Failure> {
        tryTransform { { value, send throws(Failure) in try transform(value).map(send) ?? .more } }
    }

    /// Lets through the values that satisfy a predicate that may throw the flow's failure; a
    /// throw cancels the upstream and fails the flow (see ``tryMap(_:)``).
    ///
    /// RxSwift: `filter` with a throwing closure; Combine: `tryFilter`.
    ///
    /// ```swift
    /// let valid = forms.tryFilter { form throws(FormError) in try form.validate() }
    /// ```
    @inlinable
    public func tryFilter(_ isIncluded: @escaping @Sendable (Element) throws(Failure) -> Bool) -> Flow {
        tryTransform { { value, send throws(Failure) in try isIncluded(value) ? send(value) : .more } }
    }

    /// Sends each running result of an accumulator that may throw the flow's failure; a throw
    /// cancels the upstream and fails the flow (see ``tryMap(_:)``).
    ///
    /// RxSwift: `scan` with a throwing closure; Combine: `tryScan`.
    ///
    /// ```swift
    /// let balance = transactions.tryScan(0) { total, amount throws(LedgerError) in
    ///     guard total + amount >= 0 else { throw .overdrawn }
    ///     return total + amount
    /// }
    /// ```
    @inlinable
    public func tryScan<Result: Sendable>(
        _ initial: Result,
        _ accumulate: @escaping @Sendable (Result, Element) throws(Failure) -> Result
    ) -> Flow<Result, Failure> {
        tryTransform {
            let accumulated = SerialState(initial)
            return { value, send throws(Failure) in
                accumulated.value = try accumulate(accumulated.value, value)
                return send(accumulated.value)
            }
        }
    }

    /// Drops a value when `isDuplicate(previous, value)`, which may throw the flow's failure,
    /// says it repeats the previous one; a throw cancels the upstream and fails the flow (see
    /// ``tryMap(_:)``).
    ///
    /// RxSwift: `distinctUntilChanged(_:)` with a throwing closure; Combine: `tryRemoveDuplicates(by:)`.
    ///
    /// ```swift
    /// let changes = documents.tryRemoveDuplicates { old, new throws(DiffError) in try old.isSame(as: new) }
    /// ```
    @inlinable
    public func tryRemoveDuplicates(by isDuplicate: @escaping @Sendable (Element, Element) throws(Failure) -> Bool) -> Flow {
        tryTransform {
            let previous = SerialState<Element?>(nil)
            return { value, send throws(Failure) in
                if let last = previous.value, try isDuplicate(last, value) { return .more }
                previous.value = value
                return send(value)
            }
        }
    }

    /// The first value that satisfies a predicate that may throw the flow's failure, then
    /// finished; a throw cancels the upstream and fails the flow (see ``tryMap(_:)``).
    ///
    /// RxSwift: `filter(_:).take(1)` with a throwing closure; Combine: `tryFirst(where:)`.
    ///
    /// ```swift
    /// let firstMatch = files.tryFirst { file throws(IOError) in try file.contains(needle) }
    /// ```
    @inlinable
    public func tryFirst(where predicate: @escaping @Sendable (Element) throws(Failure) -> Bool) -> Flow {
        tryFilter(predicate).prefix(1)
    }

    /// On failure, continues with the flow `handler` returns, or fails with the error it throws.
    ///
    /// RxSwift: `catch(_:)` with a throwing handler; Combine: `tryCatch(_:)` (which widens to
    /// `any Error`).
    ///
    /// ```swift
    /// let users = remote.tryCatch { error throws(AppError) in
    ///     guard error.isOffline else { throw .network(error) }
    ///     return cache.users
    /// }
    /// ```
    @inlinable
    public func tryCatch<NewFailure: Error>(
        _ handler: @escaping @Sendable (Failure) throws(NewFailure) -> Flow<Element, NewFailure>
    ) -> Flow<Element, NewFailure> {
        self.catch { error in
            do throws(NewFailure) {
                return try handler(error)
            } catch {
                return .fail(error)
            }
        }
    }

    /// The same flow, with its failure typed as `any Error`: the explicit widening before a
    /// transform whose closure throws untyped errors.
    ///
    /// ```swift
    /// let users = data.setFailureType(to: (any Error).self).tryMap { try JSONDecoder().decode(User.self, from: $0) }
    /// ```
    ///
    /// RxSwift: none (untyped errors); Combine: `mapError { $0 as Error }`.
    @inlinable
    public func setFailureType(to failureType: (any Error).Type) -> Flow<Element, any Error> {
        mapError { $0 }
    }
}
