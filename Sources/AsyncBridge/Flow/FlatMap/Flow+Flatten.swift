extension Flow {
    /// Flattens a flow of flows by following the latest inner flow: each new inner cancels the
    /// running one. `flatMapLatest { $0 }`: the rules for completion (the running inner goes
    /// on after the outer finished), failure and cancellation are ``flatMapLatest(_:)``'s.
    ///
    /// RxSwift: `switchLatest()`; Combine: `switchToLatest()`.
    ///
    /// ```swift
    /// let results = queries.map { api.search($0) }.switchToLatest()
    /// ```
    @inlinable
    public func switchToLatest<Inner>() -> Flow<Inner, Failure> where Element == Flow<Inner, Failure> {
        flatMapLatest { $0 }
    }

    /// Flattens a flow of flows by merging the inner flows' values as they come, at most
    /// `maxConcurrent` inners at once (others wait in a queue; none is dropped):
    /// `flatMap(maxConcurrent:) { $0 }`, with ``flatMap(maxConcurrent:_:)``'s rules.
    ///
    /// RxSwift: `merge()`, `merge(maxConcurrent:)`; Combine: `flatMap { $0 }`,
    /// `flatMap(maxPublishers:) { $0 }`.
    ///
    /// ```swift
    /// let allReplies = threads.map { api.replies(to: $0) }.merge(maxConcurrent: 4)
    /// ```
    @inlinable
    public func merge<Inner>(maxConcurrent: Int = .max) -> Flow<Inner, Failure> where Element == Flow<Inner, Failure> {
        flatMap(maxConcurrent: maxConcurrent) { $0 }
    }

    /// Flattens a flow of flows one inner flow at a time, in order, the others waiting in a
    /// queue: `concatMap { $0 }`, with ``concatMap(_:)``'s rules.
    ///
    /// RxSwift: `concat()`; Combine: `flatMap(maxPublishers: .max(1)) { $0 }`, which, unlike
    /// this, drops the inners a subject sends while one runs.
    ///
    /// ```swift
    /// let uploads = files.map { uploader.upload($0) }.concat()
    /// ```
    @inlinable
    public func concat<Inner>() -> Flow<Inner, Failure> where Element == Flow<Inner, Failure> {
        concatMap { $0 }
    }
}

// For inners that cannot fail. Disfavoured: where `Failure` is `Never` both forms fit, and the one
// for inners of the flow's own failure is the choice.
extension Flow {
    /// ``switchToLatest()`` for inner flows that cannot fail.
    ///
    /// RxSwift: `switchLatest()`; Combine: `switchToLatest()`.
    ///
    /// ```swift
    /// let prices = selectedStock.map { ticker.prices(of: $0) }.switchToLatest()   // inners: Flow<Price, Never>
    /// ```
    @inlinable @_disfavoredOverload
    public func switchToLatest<Inner>() -> Flow<Inner, Failure> where Element == Flow<Inner, Never> {
        flatMapLatest { $0.setFailureType(to: Failure.self) }
    }

    /// ``merge(maxConcurrent:)`` for inner flows that cannot fail.
    ///
    /// RxSwift: `merge()`, `merge(maxConcurrent:)`; Combine: `flatMap { $0 }`.
    ///
    /// ```swift
    /// let events = rooms.map { $0.events }.merge()   // inners: Flow<RoomEvent, Never>
    /// ```
    @inlinable @_disfavoredOverload
    public func merge<Inner>(maxConcurrent: Int = .max) -> Flow<Inner, Failure> where Element == Flow<Inner, Never> {
        flatMap(maxConcurrent: maxConcurrent) { $0.setFailureType(to: Failure.self) }
    }

    /// ``concat()`` for inner flows that cannot fail.
    ///
    /// RxSwift: `concat()`; Combine: `flatMap(maxPublishers: .max(1)) { $0 }`.
    ///
    /// ```swift
    /// let log = sessions.map { $0.messages }.concat()   // inners: Flow<Message, Never>
    /// ```
    @inlinable @_disfavoredOverload
    public func concat<Inner>() -> Flow<Inner, Failure> where Element == Flow<Inner, Never> {
        concatMap { $0.setFailureType(to: Failure.self) }
    }
}
