// Every zip goes through the one combining core (`CombiningCore.swift`).

extension Flow {
    /// Pairs the n-th value of this flow with the n-th value of `other`.
    ///
    /// Finishes as soon as one flow has finished and every value it sent has been paired (no
    /// further pair can come), cancelling the other, as Combine's does (RxSwift's waits for
    /// both: see <doc:Streams>); fails as soon as either fails.
    ///
    /// RxSwift: `Observable.zip`; Combine: `zip`.
    ///
    /// ```swift
    /// let pairs = questions.zip(answers)
    /// ```
    @inlinable
    public func zip<Other>(_ other: Flow<Other, Failure>) -> Flow<(Element, Other), Failure> {
        Self.zip(self, other)
    }

    /// The n-th value of each flow, as a tuple. Two flows, as `first.zip(second)`.
    ///
    /// Finishes as soon as one flow has finished and every value it sent has been zipped (no
    /// further tuple can come), cancelling the others; fails as soon as any fails, cancelling
    /// the others. Combine's behaviour; RxSwift finishes only once all have finished (see
    /// ``zip(_:)-method``).
    ///
    /// RxSwift: `Observable.zip(_:_:)`; Combine: `Publishers.Zip`.
    ///
    /// ```swift
    /// let answered = Flow.zip(questions, answers)   // Flow<(Question, Answer), any Error>
    /// ```
    @inlinable
    public static func zip<Second>(
        _ first: Flow, _ second: Flow<Second, Failure>
    ) -> Flow<(Element, Second), Failure> {
        combining(
            ZipStateMachine.init, first, second, Flow<Void, Failure>?.none, Flow<Void, Failure>?.none, filling: ((), ())
        ) { a, b, _, _ in (a, b) }
    }

    /// ``zip(_:_:)-type.method`` of three flows.
    ///
    /// RxSwift: `Observable.zip(_:_:_:)`; Combine: `Publishers.Zip3`.
    ///
    /// ```swift
    /// let rows = Flow.zip(names, ages, photos)   // Flow<(String, Int, Photo), any Error>
    /// ```
    @inlinable
    public static func zip<Second, Third>(
        _ first: Flow, _ second: Flow<Second, Failure>, _ third: Flow<Third, Failure>
    ) -> Flow<(Element, Second, Third), Failure> {
        combining(ZipStateMachine.init, first, second, third, Flow<Void, Failure>?.none, filling: (nil, ())) { a, b, c, _ in (a, b, c) }
    }

    /// ``zip(_:_:)-type.method`` of four flows.
    ///
    /// RxSwift: `Observable.zip(_:_:_:_:)`; Combine: `Publishers.Zip4`.
    ///
    /// ```swift
    /// let rows = Flow.zip(names, ages, photos, bios)
    /// ```
    @inlinable
    public static func zip<Second, Third, Fourth>(
        _ first: Flow, _ second: Flow<Second, Failure>, _ third: Flow<Third, Failure>, _ fourth: Flow<Fourth, Failure>
    ) -> Flow<(Element, Second, Third, Fourth), Failure> {
        combining(ZipStateMachine.init, first, second, third, fourth, filling: (nil, nil)) { $0 }
    }

    /// ``zip(_:_:)-type.method``, passing the n-th values to `transform` instead of making a tuple
    /// of them.
    ///
    /// RxSwift: `Observable.zip(_:_:resultSelector:)`; Combine: `zip(_:_:)`.
    ///
    /// ```swift
    /// let answered = Flow.zip(questions, answers) { "\($0.text): \($1.text)" }
    /// ```
    @inlinable
    public static func zip<Second, Output>(
        _ first: Flow, _ second: Flow<Second, Failure>,
        _ transform: @escaping @Sendable (Element, Second) -> Output
    ) -> Flow<Output, Failure> {
        combining(
            ZipStateMachine.init, first, second, Flow<Void, Failure>?.none, Flow<Void, Failure>?.none, filling: ((), ())
        ) { a, b, _, _ in transform(a, b) }
    }

    /// ``zip(_:_:_:)->Flow<(Element,Second,Third),Failure>``,
    /// passing the n-th values to `transform`.
    ///
    /// RxSwift: `Observable.zip(_:_:_:resultSelector:)`; Combine: `zip(_:_:_:)`.
    ///
    /// ```swift
    /// let rows = Flow.zip(names, ages, photos) { Row(name: $0, age: $1, photo: $2) }
    /// ```
    @inlinable
    public static func zip<Second, Third, Output>(
        _ first: Flow, _ second: Flow<Second, Failure>, _ third: Flow<Third, Failure>,
        _ transform: @escaping @Sendable (Element, Second, Third) -> Output
    ) -> Flow<Output, Failure> {
        combining(ZipStateMachine.init, first, second, third, Flow<Void, Failure>?.none, filling: (nil, ())) { a, b, c, _ in transform(a, b, c) }
    }

    /// ``zip(_:_:_:_:)->Flow<(Element,Second,Third,Fourth),Failure>``,
    /// passing the n-th values to `transform`.
    ///
    /// RxSwift: `Observable.zip(_:_:_:_:resultSelector:)`; Combine: `zip(_:_:_:_:)`.
    ///
    /// ```swift
    /// let rows = Flow.zip(names, ages, photos, bios) { Row(name: $0, age: $1, photo: $2, bio: $3) }
    /// ```
    @inlinable
    public static func zip<Second, Third, Fourth, Output>(
        _ first: Flow, _ second: Flow<Second, Failure>, _ third: Flow<Third, Failure>, _ fourth: Flow<Fourth, Failure>,
        _ transform: @escaping @Sendable (Element, Second, Third, Fourth) -> Output
    ) -> Flow<Output, Failure> {
        combining(ZipStateMachine.init, first, second, third, fourth, filling: (nil, nil)) { a, b, c, d in transform(a, b, c, d) }
    }

    /// The n-th value of this flow, `second` and `third`, as a tuple:
    /// ``zip(_:_:_:)->Flow<(Element,Second,Third),Failure>`` with this flow first.
    ///
    /// RxSwift: `Observable.zip(_:_:_:)`; Combine: `zip(_:_:)`.
    ///
    /// ```swift
    /// let rows = names.zip(ages, photos)   // Flow<(String, Int, Photo), any Error>
    /// ```
    @inlinable
    public func zip<Second, Third>(
        _ second: Flow<Second, Failure>, _ third: Flow<Third, Failure>
    ) -> Flow<(Element, Second, Third), Failure> {
        Self.zip(self, second, third)
    }

    /// The n-th value of this flow, `second`, `third` and `fourth`, as a tuple:
    /// ``zip(_:_:_:_:)->Flow<(Element,Second,Third,Fourth),Failure>`` with this flow first.
    ///
    /// RxSwift: `Observable.zip(_:_:_:_:)`; Combine: `zip(_:_:_:)`.
    ///
    /// ```swift
    /// let rows = names.zip(ages, photos, bios)
    /// ```
    @inlinable
    public func zip<Second, Third, Fourth>(
        _ second: Flow<Second, Failure>, _ third: Flow<Third, Failure>, _ fourth: Flow<Fourth, Failure>
    ) -> Flow<(Element, Second, Third, Fourth), Failure> {
        Self.zip(self, second, third, fourth)
    }

    /// The n-th value of this flow and `second`, passed to `transform`.
    ///
    /// RxSwift: `Observable.zip(_:_:resultSelector:)`; Combine: `zip(_:_:)`.
    ///
    /// ```swift
    /// let answered = questions.zip(answers) { "\($0.text): \($1.text)" }
    /// ```
    @inlinable
    public func zip<Second, Output>(
        _ second: Flow<Second, Failure>,
        _ transform: @escaping @Sendable (Element, Second) -> Output
    ) -> Flow<Output, Failure> {
        Self.zip(self, second, transform)
    }

    /// The n-th value of this flow, `second` and `third`, passed to `transform`.
    ///
    /// RxSwift: `Observable.zip(_:_:_:resultSelector:)`; Combine: `zip(_:_:_:)`.
    ///
    /// ```swift
    /// let rows = names.zip(ages, photos) { Row(name: $0, age: $1, photo: $2) }
    /// ```
    @inlinable
    public func zip<Second, Third, Output>(
        _ second: Flow<Second, Failure>, _ third: Flow<Third, Failure>,
        _ transform: @escaping @Sendable (Element, Second, Third) -> Output
    ) -> Flow<Output, Failure> {
        Self.zip(self, second, third, transform)
    }

    /// The n-th value of this flow, `second`, `third` and `fourth`, passed to `transform`.
    ///
    /// RxSwift: `Observable.zip(_:_:_:_:resultSelector:)`; Combine: `zip(_:_:_:_:)`.
    ///
    /// ```swift
    /// let rows = names.zip(ages, photos, bios) { Row(name: $0, age: $1, photo: $2, bio: $3) }
    /// ```
    @inlinable
    public func zip<Second, Third, Fourth, Output>(
        _ second: Flow<Second, Failure>, _ third: Flow<Third, Failure>, _ fourth: Flow<Fourth, Failure>,
        _ transform: @escaping @Sendable (Element, Second, Third, Fourth) -> Output
    ) -> Flow<Output, Failure> {
        Self.zip(self, second, third, fourth, transform)
    }

    /// The n-th value of each of `flows`, as an array in their order. Finishes at once when
    /// `flows` is empty (as RxSwift's does), otherwise as ``zip(_:_:)-type.method``.
    ///
    /// RxSwift: `Observable.zip(_:)` over a collection; Combine: (none).
    ///
    /// ```swift
    /// let pages = Flow.zip(chapters.map(\.pages))   // the first page of each chapter, then the second…
    /// ```
    @inlinable
    public static func zip(_ flows: [Flow]) -> Flow<[Element], Failure> {
        combining(ZipStateMachine.init, flows)
    }
}
