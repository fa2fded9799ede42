// Every combineLatest goes through the one combining core (`CombiningCore.swift`).

extension Flow {
    /// The latest value of each flow, as a pair, every time either sends, once both have sent.
    ///
    /// Finishes when both have finished, or as soon as one finishes without having sent a
    /// value: no pair can ever come (RxSwift and Combine finish later: see <doc:Streams>).
    /// Fails as soon as either fails, cancelling the other.
    ///
    /// RxSwift: `Observable.combineLatest`; Combine: `combineLatest`.
    ///
    /// ```swift
    /// let canSubmit = email.combineLatest(password).map { !$0.isEmpty && $1.count >= 8 }
    /// ```
    @inlinable
    public func combineLatest<Other>(_ other: Flow<Other, Failure>) -> Flow<(Element, Other), Failure> {
        Self.combineLatest(self, other)
    }

    /// The latest value of each flow, as a tuple, every time any of them sends, once all have
    /// sent. Two flows, as `first.combineLatest(second)`.
    ///
    /// Finishes when all have finished, or as soon as one finishes without having sent a value
    /// (no tuple can ever come; RxSwift and Combine finish later: see <doc:Streams>); fails as
    /// soon as any fails, cancelling the others.
    ///
    /// RxSwift: `Observable.combineLatest(_:_:)`; Combine: `Publishers.CombineLatest`.
    ///
    /// ```swift
    /// let credentials = Flow.combineLatest(email, password)   // Flow<(String, String), Never>
    /// ```
    @inlinable
    public static func combineLatest<Second>(
        _ first: Flow, _ second: Flow<Second, Failure>
    ) -> Flow<(Element, Second), Failure> {
        combining(
            CombineLatestStateMachine.init, first, second, Flow<Void, Failure>?.none, Flow<Void, Failure>?.none, filling: ((), ())
        ) { a, b, _, _ in (a, b) }
    }

    /// ``combineLatest(_:_:)-type.method`` of three flows.
    ///
    /// RxSwift: `Observable.combineLatest(_:_:_:)`; Combine: `Publishers.CombineLatest3`.
    ///
    /// ```swift
    /// let form = Flow.combineLatest(name, email, acceptsTerms)   // Flow<(String, String, Bool), Never>
    /// ```
    @inlinable
    public static func combineLatest<Second, Third>(
        _ first: Flow, _ second: Flow<Second, Failure>, _ third: Flow<Third, Failure>
    ) -> Flow<(Element, Second, Third), Failure> {
        combining(CombineLatestStateMachine.init, first, second, third, Flow<Void, Failure>?.none, filling: (nil, ())) { a, b, c, _ in (a, b, c) }
    }

    /// ``combineLatest(_:_:)-type.method`` of four flows.
    ///
    /// RxSwift: `Observable.combineLatest(_:_:_:_:)`; Combine: `Publishers.CombineLatest4`.
    ///
    /// ```swift
    /// let form = Flow.combineLatest(name, email, password, acceptsTerms)
    /// ```
    @inlinable
    public static func combineLatest<Second, Third, Fourth>(
        _ first: Flow, _ second: Flow<Second, Failure>, _ third: Flow<Third, Failure>, _ fourth: Flow<Fourth, Failure>
    ) -> Flow<(Element, Second, Third, Fourth), Failure> {
        combining(CombineLatestStateMachine.init, first, second, third, fourth, filling: (nil, nil)) { $0 }
    }

    /// ``combineLatest(_:_:)-type.method``, passing the latest values to `transform` instead of
    /// making a tuple of them.
    ///
    /// RxSwift: `Observable.combineLatest(_:_:resultSelector:)`; Combine: `combineLatest(_:_:)`.
    ///
    /// ```swift
    /// let canSubmit = Flow.combineLatest(email, password) { !$0.isEmpty && $1.count >= 8 }
    /// ```
    @inlinable
    public static func combineLatest<Second, Output>(
        _ first: Flow, _ second: Flow<Second, Failure>,
        _ transform: @escaping @Sendable (Element, Second) -> Output
    ) -> Flow<Output, Failure> {
        combining(
            CombineLatestStateMachine.init, first, second, Flow<Void, Failure>?.none, Flow<Void, Failure>?.none, filling: ((), ())
        ) { a, b, _, _ in transform(a, b) }
    }

    /// ``combineLatest(_:_:_:)->Flow<(Element,Second,Third),Failure>``,
    /// passing the latest values to `transform`.
    ///
    /// RxSwift: `Observable.combineLatest(_:_:_:resultSelector:)`; Combine:
    /// `combineLatest(_:_:_:)`.
    ///
    /// ```swift
    /// let canSubmit = Flow.combineLatest(name, email, acceptsTerms) { !$0.isEmpty && $1.contains("@") && $2 }
    /// ```
    @inlinable
    public static func combineLatest<Second, Third, Output>(
        _ first: Flow, _ second: Flow<Second, Failure>, _ third: Flow<Third, Failure>,
        _ transform: @escaping @Sendable (Element, Second, Third) -> Output
    ) -> Flow<Output, Failure> {
        combining(CombineLatestStateMachine.init, first, second, third, Flow<Void, Failure>?.none, filling: (nil, ())) { a, b, c, _ in transform(a, b, c) }
    }

    /// ``combineLatest(_:_:_:_:)->Flow<(Element,Second,Third,Fourth),Failure>``,
    /// passing the latest values to `transform`.
    ///
    /// RxSwift: `Observable.combineLatest(_:_:_:_:resultSelector:)`; Combine:
    /// `combineLatest(_:_:_:_:)`.
    ///
    /// ```swift
    /// let canSubmit = Flow.combineLatest(name, email, password, acceptsTerms) { !$0.isEmpty && $1.contains("@") && $2.count >= 8 && $3 }
    /// ```
    @inlinable
    public static func combineLatest<Second, Third, Fourth, Output>(
        _ first: Flow, _ second: Flow<Second, Failure>, _ third: Flow<Third, Failure>, _ fourth: Flow<Fourth, Failure>,
        _ transform: @escaping @Sendable (Element, Second, Third, Fourth) -> Output
    ) -> Flow<Output, Failure> {
        combining(CombineLatestStateMachine.init, first, second, third, fourth, filling: (nil, nil)) { a, b, c, d in transform(a, b, c, d) }
    }

    /// The latest value of this flow, `second` and `third`, as a tuple:
    /// ``combineLatest(_:_:_:)->Flow<(Element,Second,Third),Failure>`` with this flow first.
    ///
    /// RxSwift: `Observable.combineLatest(_:_:_:)`; Combine: `combineLatest(_:_:)`.
    ///
    /// ```swift
    /// let form = name.combineLatest(email, acceptsTerms)   // Flow<(String, String, Bool), Never>
    /// ```
    @inlinable
    public func combineLatest<Second, Third>(
        _ second: Flow<Second, Failure>, _ third: Flow<Third, Failure>
    ) -> Flow<(Element, Second, Third), Failure> {
        Self.combineLatest(self, second, third)
    }

    /// The latest value of this flow, `second`, `third` and `fourth`, as a tuple:
    /// ``combineLatest(_:_:_:_:)->Flow<(Element,Second,Third,Fourth),Failure>`` with this flow first.
    ///
    /// RxSwift: `Observable.combineLatest(_:_:_:_:)`; Combine: `combineLatest(_:_:_:)`.
    ///
    /// ```swift
    /// let form = name.combineLatest(email, password, acceptsTerms)
    /// ```
    @inlinable
    public func combineLatest<Second, Third, Fourth>(
        _ second: Flow<Second, Failure>, _ third: Flow<Third, Failure>, _ fourth: Flow<Fourth, Failure>
    ) -> Flow<(Element, Second, Third, Fourth), Failure> {
        Self.combineLatest(self, second, third, fourth)
    }

    /// The latest value of this flow and `second`, passed to `transform`.
    ///
    /// RxSwift: `Observable.combineLatest(_:_:resultSelector:)`; Combine: `combineLatest(_:_:)`.
    ///
    /// ```swift
    /// let canSubmit = email.combineLatest(password) { !$0.isEmpty && $1.count >= 8 }
    /// ```
    @inlinable
    public func combineLatest<Second, Output>(
        _ second: Flow<Second, Failure>,
        _ transform: @escaping @Sendable (Element, Second) -> Output
    ) -> Flow<Output, Failure> {
        Self.combineLatest(self, second, transform)
    }

    /// The latest value of this flow, `second` and `third`, passed to `transform`.
    ///
    /// RxSwift: `Observable.combineLatest(_:_:_:resultSelector:)`; Combine: `combineLatest(_:_:_:)`.
    ///
    /// ```swift
    /// let canSubmit = name.combineLatest(email, acceptsTerms) { !$0.isEmpty && $1.contains("@") && $2 }
    /// ```
    @inlinable
    public func combineLatest<Second, Third, Output>(
        _ second: Flow<Second, Failure>, _ third: Flow<Third, Failure>,
        _ transform: @escaping @Sendable (Element, Second, Third) -> Output
    ) -> Flow<Output, Failure> {
        Self.combineLatest(self, second, third, transform)
    }

    /// The latest value of this flow, `second`, `third` and `fourth`, passed to `transform`.
    ///
    /// RxSwift: `Observable.combineLatest(_:_:_:_:resultSelector:)`; Combine:
    /// `combineLatest(_:_:_:_:)`.
    ///
    /// ```swift
    /// let canSubmit = name.combineLatest(email, password, acceptsTerms) { !$0.isEmpty && $1.contains("@") && $2.count >= 8 && $3 }
    /// ```
    @inlinable
    public func combineLatest<Second, Third, Fourth, Output>(
        _ second: Flow<Second, Failure>, _ third: Flow<Third, Failure>, _ fourth: Flow<Fourth, Failure>,
        _ transform: @escaping @Sendable (Element, Second, Third, Fourth) -> Output
    ) -> Flow<Output, Failure> {
        Self.combineLatest(self, second, third, fourth, transform)
    }

    /// The latest value of each of `flows`, as an array in their order, every time any of them
    /// sends, once all have sent. Finishes at once, without a value, when `flows` is empty
    /// (RxSwift's sends one empty array first), otherwise as ``combineLatest(_:_:)-type.method``.
    ///
    /// RxSwift: `Observable.combineLatest(_:)` over a collection; Combine: (none).
    ///
    /// ```swift
    /// let allReady = Flow.combineLatest(services.map(\.isReady)).map { $0.allSatisfy { $0 } }
    /// ```
    @inlinable
    public static func combineLatest(_ flows: [Flow]) -> Flow<[Element], Failure> {
        combining(CombineLatestStateMachine.init, flows)
    }
}
