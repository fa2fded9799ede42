// combineLatest and zip of more than two flows: the forms of three and four flows (`Flow.combineLatest(a,
// b, c)`, `a.zip(b, c, d)`, with or without a transform) and the collection forms
// (`Flow.zip([flows])`).
//
// Three and four flows are chains of the typed pairs (`combineLatest(_:)`, `zip(_:)`), four as a
// pair of pairs, so that each value goes through two fan-ins. One fan-in for all, with parameter
// packs, measured slower: the sources' values, of different types, either shared its queue boxed
// as `any Sendable` (an existential copy and a dynamic cast each: 2.5 times the chain's time for
// three `Int` sources), or waited in typed per-source buffers, whose code Swift 6.3 does not
// specialise inside a pack expansion (10 times: generic metadata looked up per value). The
// finishing rules of a chain are those of one fan-in: a pair ends when no tuple can come from
// it, and the chain ends when its outer pair does.
//
// The collection forms, whose sources share a type, have one fan-in for all.

/// An event of one of several sources, tagged with the source's index.
@usableFromInline
typealias IndexedEvent<Element: Sendable, Failure: Error> = (index: Int, event: FlowEvent<Element, Failure>)

/// What combineLatest knows of its sources, wherever their values are kept.
@usableFromInline
struct LatestCounts: Sendable {
    @usableFromInline let count: Int
    /// Sources that have sent no value yet.
    @usableFromInline var missing: Int
    @usableFromInline var finished = 0

    @inlinable
    init(count: Int) {
        self.count = count
        missing = count
    }

    /// A source sent a value (its first, if `isFirst`): returns whether every source has one.
    @inlinable
    mutating func received(isFirst: Bool) -> Bool {
        if isFirst { missing -= 1 }
        return missing == 0
    }

    /// A source finished: returns whether the combined flow finishes, because all have or
    /// because this one never sent a value (no combination can ever come).
    @inlinable
    mutating func finish(hadValue: Bool) -> Bool {
        finished += 1
        return finished == count || !hadValue
    }
}

/// What zip knows of its sources, wherever their values are kept.
@usableFromInline
struct ZipCounts: Sendable {
    /// Values received and not zipped yet, per source.
    @usableFromInline var available: [Int]
    @usableFromInline var finished: [Bool]
    /// How many sources have no value available: a tuple can be made when none.
    @usableFromInline var emptyCount: Int
    /// A source has finished and has no value left: no tuple can come.
    @usableFromInline var isExhausted = false

    @inlinable
    init(count: Int) {
        available = Array(repeating: 0, count: count)
        finished = Array(repeating: false, count: count)
        emptyCount = count
    }

    @inlinable
    var canZip: Bool { emptyCount == 0 && !available.isEmpty }

    @inlinable
    mutating func received(at index: Int) {
        if available[index] == 0 { emptyCount -= 1 }
        available[index] += 1
    }

    @inlinable
    mutating func finish(at index: Int) {
        finished[index] = true
        if available[index] == 0 { isExhausted = true }
    }

    /// One value of each source went into a tuple.
    @inlinable
    mutating func zipped() {
        for index in available.indices {
            available[index] -= 1
            if available[index] == 0 {
                emptyCount += 1
                if finished[index] { isExhausted = true }
            }
        }
    }
}

extension Flow {
    /// Subscribes each of `flows` to `fanIn`, tagging its events with its index.
    @inlinable
    static func feed<Output>(_ flows: [Flow], into fanIn: FanIn<IndexedEvent<Element, Failure>, Output, Failure>) {
        for (index, flow) in flows.enumerated() {
            flow.feed(fanIn, through: fanIn.sources[index]) { (index, $0) }
        }
    }

    /// combineLatest over `flows`, as arrays.
    @inlinable
    static func combiningLatest(_ flows: [Flow]) -> Flow<[Element], Failure> {
        Flow<[Element], Failure> { subscriber in
            let state = SerialState((latest: [Element?](repeating: nil, count: flows.count), counts: LatestCounts(count: flows.count)))
            let fanIn = FanIn<IndexedEvent<Element, Failure>, [Element], Failure>(
                downstream: subscriber, sourceCount: flows.count
            ) { fanIn, tagged in
                switch tagged.event {
                case .value(let value):
                    let ready = state.value.counts.received(isFirst: state.value.latest[tagged.index] == nil)
                    state.value.latest[tagged.index] = value
                    if ready { fanIn.send(state.value.latest.map { $0.unsafelyUnwrapped }) }
                case .failure(let error):
                    fanIn.end(.failure(error))
                case .finished:
                    if state.value.counts.finish(hadValue: state.value.latest[tagged.index] != nil) { fanIn.end(.finished) }
                }
            }
            guard !flows.isEmpty else { return fanIn.end(.finished) }
            feed(flows, into: fanIn)
        }
    }

    /// zip over `flows`, as arrays.
    @inlinable
    static func zipping(_ flows: [Flow]) -> Flow<[Element], Failure> {
        Flow<[Element], Failure> { subscriber in
            let state = SerialState((queues: [RingBuffer<Element>](repeating: RingBuffer(), count: flows.count), counts: ZipCounts(count: flows.count)))
            let fanIn = FanIn<IndexedEvent<Element, Failure>, [Element], Failure>(
                downstream: subscriber, sourceCount: flows.count
            ) { fanIn, tagged in
                switch tagged.event {
                case .value(let value):
                    state.value.queues[tagged.index].append(value)
                    state.value.counts.received(at: tagged.index)
                case .failure(let error): return fanIn.end(.failure(error))
                case .finished: state.value.counts.finish(at: tagged.index)
                }
                while state.value.counts.canZip {
                    let values = state.value.queues.indices.map { state.value.queues[$0].removeFirst() }
                    state.value.counts.zipped()
                    fanIn.send(values)
                }
                if state.value.counts.isExhausted { fanIn.end(.finished) }
            }
            guard !flows.isEmpty else { return fanIn.end(.finished) }
            feed(flows, into: fanIn)
        }
    }
}


// MARK: combineLatest

extension Flow {
    /// The latest value of each flow, as a tuple, every time any of them sends, once all have
    /// sent. Two flows, as `first.combineLatest(second)`.
    ///
    /// Finishes when all have finished, or as soon as one finishes without having sent a value
    /// (no tuple can ever come); fails as soon as any fails, cancelling the others. RxSwift
    /// finishes later when a source ends without a value (at another source's next value),
    /// Combine only once all have finished: see ``combineLatest(_:)`` for why we finish at
    /// once.
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
        first.combiningLatest(second) { ($0, $1) }
    }

    /// ``combineLatest(_:_:)`` of three flows.
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
        combineLatest(first, second, third) { ($0, $1, $2) }
    }

    /// ``combineLatest(_:_:)`` of four flows.
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
        combineLatest(first, second, third, fourth) { ($0, $1, $2, $3) }
    }

    /// ``combineLatest(_:_:)``, passing the latest values to `transform` instead of making a
    /// tuple of them.
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
        first.combiningLatest(second, transform)
    }

    /// ``combineLatest(_:_:_:)``, passing the latest values to `transform`.
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
        first.combiningLatest(second) { ($0, $1) }.combiningLatest(third) { transform($0.0, $0.1, $1) }
    }

    /// ``combineLatest(_:_:_:_:)``, passing the latest values to `transform`.
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
        first.combiningLatest(second) { ($0, $1) }
            .combiningLatest(third.combiningLatest(fourth) { ($0, $1) }) { transform($0.0, $0.1, $1.0, $1.1) }
    }

    /// The latest value of this flow, `second` and `third`, as a tuple:
    /// ``combineLatest(_:_:_:)`` with this flow first.
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
    /// ``combineLatest(_:_:_:_:)`` with this flow first.
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
        combiningLatest(second, transform)
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
    /// sends, once all have sent. Finishes at once when `flows` is empty (as RxSwift's does),
    /// otherwise as ``combineLatest(_:_:)``.
    ///
    /// RxSwift: `Observable.combineLatest(_:)` over a collection; Combine: (none).
    ///
    /// ```swift
    /// let allReady = Flow.combineLatest(services.map(\.isReady)).map { $0.allSatisfy { $0 } }
    /// ```
    @inlinable
    public static func combineLatest(_ flows: [Flow]) -> Flow<[Element], Failure> {
        combiningLatest(flows)
    }
}

// MARK: zip

extension Flow {
    /// The n-th value of each flow, as a tuple. Two flows, as `first.zip(second)`.
    ///
    /// Finishes as soon as one flow has finished and every value it sent has been zipped (no
    /// further tuple can come), cancelling the others; fails as soon as any fails, cancelling
    /// the others. Combine's behaviour; RxSwift finishes only once all have finished (see
    /// ``zip(_:)``).
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
        first.zipping(second) { ($0, $1) }
    }

    /// ``zip(_:_:)`` of three flows.
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
        zip(first, second, third) { ($0, $1, $2) }
    }

    /// ``zip(_:_:)`` of four flows.
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
        zip(first, second, third, fourth) { ($0, $1, $2, $3) }
    }

    /// ``zip(_:_:)``, passing the n-th values to `transform` instead of making a tuple of them.
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
        first.zipping(second, transform)
    }

    /// ``zip(_:_:_:)``, passing the n-th values to `transform`.
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
        first.zipping(second) { ($0, $1) }.zipping(third) { transform($0.0, $0.1, $1) }
    }

    /// ``zip(_:_:_:_:)``, passing the n-th values to `transform`.
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
        first.zipping(second) { ($0, $1) }
            .zipping(third.zipping(fourth) { ($0, $1) }) { transform($0.0, $0.1, $1.0, $1.1) }
    }

    /// The n-th value of this flow, `second` and `third`, as a tuple: ``zip(_:_:_:)`` with this
    /// flow first.
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
    /// ``zip(_:_:_:_:)`` with this flow first.
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
        zipping(second, transform)
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
    /// `flows` is empty (as RxSwift's does), otherwise as ``zip(_:_:)``.
    ///
    /// RxSwift: `Observable.zip(_:)` over a collection; Combine: (none).
    ///
    /// ```swift
    /// let pages = Flow.zip(chapters.map(\.pages))   // the first page of each chapter, then the second…
    /// ```
    @inlinable
    public static func zip(_ flows: [Flow]) -> Flow<[Element], Failure> {
        zipping(flows)
    }
}
