extension Flow {
    /// One value, then finished.
    ///
    /// RxSwift: `Observable.just`; Combine: `Just`.
    ///
    /// ```swift
    /// let one = Flow<Int, Never>.just(1)
    /// ```
    @inlinable
    public static func just(_ value: Element) -> Flow where Element: Sendable {
        Flow { subscriber in
            if subscriber.receive(value) == .more { subscriber.complete(.finished) }
        }
    }

    /// Finishes at once, with no value.
    ///
    /// RxSwift: `Observable.empty()`; Combine: `Empty()`.
    ///
    /// ```swift
    /// let nothing = Flow<Int, Never>.empty
    /// ```
    @inlinable
    public static var empty: Flow {
        Flow { subscriber in subscriber.complete(.finished) }
    }

    /// Never sends anything and never completes.
    ///
    /// RxSwift: `Observable.never()`; Combine: `Empty(completeImmediately: false)`.
    ///
    /// ```swift
    /// let silent = Flow<Int, Never>.never
    /// ```
    @inlinable
    public static var never: Flow {
        Flow(run: { _ in })
    }

    /// Fails at once.
    ///
    /// RxSwift: `Observable.error`; Combine: `Fail`.
    ///
    /// ```swift
    /// let failed = Flow<Int, APIError>.fail(.offline)
    /// ```
    @inlinable
    public static func fail(_ error: Failure) -> Flow {
        Flow { subscriber in subscriber.complete(.failure(error)) }
    }

    /// The elements of a sequence, synchronously during `subscribe`, then finished. Stops early
    /// when the subscriber wants no more (after `prefix`, say) or the subscription is cancelled,
    /// from any thread (checked before each element).
    ///
    /// RxSwift: `Observable.from`; Combine: `Sequence.publisher`.
    ///
    /// ```swift
    /// let numbers = Flow<Int, Never>.sequence(1...3)
    /// ```
    @inlinable
    public static func sequence<Values: Sequence & Sendable>(_ values: Values) -> Flow where Values.Element == Element {
        Flow { subscriber in
            let cancelled = subscriber.subscription.cancellationFlag()
            for value in values where cancelled.isRaised || subscriber.receive(value) == .stop { return }
            subscriber.complete(.finished)
        }
    }

    /// Builds a new flow for each subscription, when it subscribes.
    ///
    /// RxSwift: `Observable.deferred`; Combine: `Deferred`.
    ///
    /// ```swift
    /// let now = Flow<Date, Never>.deferred { .just(Date()) }
    /// ```
    @inlinable
    public static func deferred(_ makeFlow: @escaping @Sendable () -> Flow) -> Flow {
        Flow { subscriber in makeFlow().run(subscriber) }
    }

    /// One value then finished, or a failure.
    ///
    /// ```swift
    /// let user = Flow(Result<User, APIError>.success(ada))
    /// ```
    @inlinable
    public init(_ result: Result<Element, Failure>) where Element: Sendable {
        switch result {
        case .success(let value): self = .just(value)
        case .failure(let error): self = .fail(error)
        }
    }
}

extension Flow where Element: Sendable {
    /// A future's result as a flow: its value then finished, or its failure. Every
    /// subscription shares the future's one run (a `SharedFuture` is memoised); cancelling a
    /// subscription leaves the future like any other consumer leaving.
    ///
    /// A broken contract (``AsyncBridgeError``, reported through ``AsyncBridgeDiagnostics``)
    /// fails the flow when `Failure` can hold it (`any Error`), and otherwise finishes it
    /// without a value.
    ///
    /// ```swift
    /// let user = Flow(SharedFuture { api.getUser(id: 42, completion: $0) })
    /// ```
    @inlinable
    public init(_ future: SharedFuture<Element, Failure>) {
        self.init { subscriber in
            guard let id = future.subscribe({ outcome in
                switch outcome {
                case .success(let value)?:
                    if subscriber.receive(value) == .more { subscriber.complete(.finished) }
                case .failure(let error)?:
                    subscriber.complete(.failure(error))
                case .broken(let error)?:
                    subscriber.complete((error as? Failure).map { .failure($0) } ?? .finished)
                case nil:
                    break  // this subscription was cancelled
                }
            }) else { return }
            subscriber.subscription.onCancel { future.remove(id) }
        }
    }
}
