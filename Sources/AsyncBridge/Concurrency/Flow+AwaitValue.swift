extension Flow where Element: Sendable {
    /// The flow's first value; the subscription is cancelled as soon as it has arrived.
    ///
    /// Throws the flow's `Failure`, ``AsyncBridgeError/noValue`` when it finishes empty, or
    /// `CancellationError` (which cancels the subscription).
    ///
    /// RxSwift: `first()` (`nil` when empty); Combine: `values.first(where:)`.
    ///
    /// ```swift
    /// let current = try await locations.firstValue
    /// ```
    @inlinable
    public var firstValue: Element {
        get async throws {
            try await awaitValue { value, _ in .finish(value) }
        }
    }

    /// The flow's last value, once it has finished.
    ///
    /// Throws the flow's `Failure`, ``AsyncBridgeError/noValue`` when it finishes empty, or
    /// `CancellationError` (which cancels the subscription).
    ///
    /// RxSwift: `takeLast(1).asSingle()`; Combine: `last()`.
    ///
    /// ```swift
    /// let total = try await uploads.map(\.bytes).scan(0, +).lastValue
    /// ```
    @inlinable
    public var lastValue: Element {
        get async throws {
            try await awaitValue { _, _ in .keep }
        }
    }

    /// The flow's only value, once it has finished.
    ///
    /// Throws the flow's `Failure`, ``AsyncBridgeError/noValue``,
    /// ``AsyncBridgeError/moreThanOneValue`` at a second value (cancelling the subscription), or
    /// `CancellationError`.
    ///
    /// RxSwift: `asSingle()`; Combine: none.
    ///
    /// ```swift
    /// let user = try await Flow { api.getUser(id: 42, completion: $0) }.singleValue
    /// ```
    @inlinable
    public var singleValue: Element {
        get async throws {
            try await awaitValue { _, previous in previous == nil ? .keep : .fail(.moreThanOneValue) }
        }
    }

    /// What to do with a value while awaiting one.
    @usableFromInline
    enum ValueDecision {
        /// Keep it as the candidate and wait for more (or the finish).
        case keep
        case finish(Element)
        case fail(AsyncBridgeError)
    }

    /// Subscribes once, keeping the latest value, until `decide(new, kept)` or the completion
    /// gives the answer.
    @inlinable
    func awaitValue(_ decide: @escaping @Sendable (Element, Element?) -> ValueDecision) async throws -> Element {
        let upstream = self
        return try await SharedFuture<Element, Failure>(work: { completer in
            let subscription = FlowSubscription()
            let kept = SerialState<Element?>(nil)
            let answered = SerialState(false)
            upstream.run(FlowSubscriber(
                subscription: subscription,
                receive: { value in
                    if answered.value { return .stop }
                    let outcome: FutureOutcome<Element, Failure>
                    switch decide(value, kept.value) {
                    case .keep:
                        kept.value = value
                        return .more
                    case .finish(let answer):
                        outcome = .success(answer)
                    case .fail(let error):
                        outcome = .broken(error)
                    }
                    answered.value = true
                    subscription.cancel()
                    completer.complete(outcome)
                    return .stop
                },
                complete: { completion in
                    if answered.value { return }
                    answered.value = true
                    switch completion {
                    case .finished:
                        completer.complete(kept.value.map { .success($0) } ?? .broken(.noValue))
                    case .failure(let error):
                        completer.complete(.failure(error))
                    }
                }
            ))
            // The cancel action keeps the completer alive, so a source that drops its subscriber
            // without completing (`Flow.never`) waits instead of failing `completionNeverCalled`.
            return { withExtendedLifetime(completer) { subscription.cancel() } }
        }).value
    }
}
