// combineLatest and zip of more than two flows: the forms of three and four flows (`Flow.combineLatest(a,
// b, c)`, `a.zip(b, c, d)`, with or without a transform) and the collection forms
// (`Flow.zip([flows])`). Each subscription has one fan-in (one `SerialDrain`) for all its
// sources.
//
// Three and four flows are fixed arities with typed events (`OneOfFour`; three flows leave the
// fourth out), not parameter packs: one fan-in over a pack measured slower than even a chain of
// typed pairs, because the sources' values, of different types, either shared its queue boxed as
// `any Sendable` (an existential copy and a dynamic cast per value), or waited in typed
// per-source buffers, whose code Swift 6.3 does not specialise inside a pack expansion (generic
// metadata looked up per value). The typed fan-in is faster than the chain of pairs.

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

// MARK: Collections: the values travel in the fan-in's events.

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

// MARK: Three and four flows: one fan-in, typed events.

/// An event of one of up to four sources, typed.
@usableFromInline
enum OneOfFour<A: Sendable, B: Sendable, C: Sendable, D: Sendable, Failure: Error>: Sendable {
    case first(A)
    case second(B)
    case third(C)
    case fourth(D)
    /// The source at `index` (0 to 3) completed.
    case completed(Int, FlowCompletion<Failure>)
}

extension Flow {
    /// Subscribes this flow to `fanIn` as its source number `index`, its values wrapped by
    /// `wrap`.
    @inlinable
    func feed<A, B, C, D, Output>(
        _ fanIn: FanIn<OneOfFour<A, B, C, D, Failure>, Output, Failure>,
        at index: Int,
        _ wrap: @escaping @Sendable (Element) -> OneOfFour<A, B, C, D, Failure>
    ) {
        run(FlowSubscriber(
            subscription: fanIn.sources[index],
            receive: { fanIn.submit(wrap($0)) },
            complete: { _ = fanIn.submit(.completed(index, $0)) }
        ))
    }

    /// Subscribes `first`…`fourth` to `fanIn`; without `fourth`, three sources.
    @inlinable
    static func feed<B, C, D, Output>(
        _ first: Flow, _ second: Flow<B, Failure>, _ third: Flow<C, Failure>, _ fourth: Flow<D, Failure>?,
        into fanIn: FanIn<OneOfFour<Element, B, C, D, Failure>, Output, Failure>
    ) {
        first.feed(fanIn, at: 0) { .first($0) }
        second.feed(fanIn, at: 1) { .second($0) }
        third.feed(fanIn, at: 2) { .third($0) }
        fourth?.feed(fanIn, at: 3) { .fourth($0) }
    }

    /// combineLatest of three or four flows, through one fan-in. Without `fourth`, `filler`
    /// stands for its value.
    @inlinable
    static func combiningLatest<B, C, D, Output>(
        _ first: Flow, _ second: Flow<B, Failure>, _ third: Flow<C, Failure>, _ fourth: Flow<D, Failure>?,
        filler: D?,
        _ combine: @escaping @Sendable (Element, B, C, D) -> Output
    ) -> Flow<Output, Failure> {
        Flow<Output, Failure> { subscriber in
            let state = SerialState((
                latest: (Element?.none, B?.none, C?.none, filler),
                counts: LatestCounts(count: fourth == nil ? 3 : 4)
            ))
            let fanIn = FanIn<OneOfFour<Element, B, C, D, Failure>, Output, Failure>(
                downstream: subscriber, sourceCount: fourth == nil ? 3 : 4
            ) { fanIn, event in
                let ready: Bool
                switch event {
                case .first(let value):
                    ready = state.value.counts.received(isFirst: state.value.latest.0 == nil)
                    state.value.latest.0 = value
                case .second(let value):
                    ready = state.value.counts.received(isFirst: state.value.latest.1 == nil)
                    state.value.latest.1 = value
                case .third(let value):
                    ready = state.value.counts.received(isFirst: state.value.latest.2 == nil)
                    state.value.latest.2 = value
                case .fourth(let value):
                    ready = state.value.counts.received(isFirst: state.value.latest.3 == nil)
                    state.value.latest.3 = value
                case .completed(_, .failure(let error)):
                    return fanIn.end(.failure(error))
                case .completed(let index, .finished):
                    let latest = state.value.latest
                    let hadValue = switch index {
                    case 0: latest.0 != nil
                    case 1: latest.1 != nil
                    case 2: latest.2 != nil
                    default: latest.3 != nil
                    }
                    if state.value.counts.finish(hadValue: hadValue) { fanIn.end(.finished) }
                    return
                }
                if ready, case let (a?, b?, c?, d?) = state.value.latest { fanIn.send(combine(a, b, c, d)) }
            }
            feed(first, second, third, fourth, into: fanIn)
        }
    }

    /// zip of three or four flows, through one fan-in. Without `fourth`, `filler` stands for
    /// its values.
    @inlinable
    static func zipping<B, C, D, Output>(
        _ first: Flow, _ second: Flow<B, Failure>, _ third: Flow<C, Failure>, _ fourth: Flow<D, Failure>?,
        filler: D?,
        _ combine: @escaping @Sendable (Element, B, C, D) -> Output
    ) -> Flow<Output, Failure> {
        Flow<Output, Failure> { subscriber in
            let state = SerialState((
                queues: (RingBuffer<Element>(), RingBuffer<B>(), RingBuffer<C>(), RingBuffer<D>()),
                counts: ZipCounts(count: fourth == nil ? 3 : 4)
            ))
            let fanIn = FanIn<OneOfFour<Element, B, C, D, Failure>, Output, Failure>(
                downstream: subscriber, sourceCount: fourth == nil ? 3 : 4
            ) { fanIn, event in
                switch event {
                case .first(let value):
                    state.value.queues.0.append(value)
                    state.value.counts.received(at: 0)
                case .second(let value):
                    state.value.queues.1.append(value)
                    state.value.counts.received(at: 1)
                case .third(let value):
                    state.value.queues.2.append(value)
                    state.value.counts.received(at: 2)
                case .fourth(let value):
                    state.value.queues.3.append(value)
                    state.value.counts.received(at: 3)
                case .completed(_, .failure(let error)):
                    return fanIn.end(.failure(error))
                case .completed(let index, .finished):
                    state.value.counts.finish(at: index)
                }
                while state.value.counts.canZip {
                    let a = state.value.queues.0.removeFirst()
                    let b = state.value.queues.1.removeFirst()
                    let c = state.value.queues.2.removeFirst()
                    let d = filler ?? state.value.queues.3.removeFirst()
                    state.value.counts.zipped()
                    fanIn.send(combine(a, b, c, d))
                }
                if state.value.counts.isExhausted { fanIn.end(.finished) }
            }
            feed(first, second, third, fourth, into: fanIn)
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
    /// Combine only once all have finished: see ``combineLatest(_:)-method`` for why we finish at
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
        combiningLatest(first, second, third, Flow<Void, Failure>?.none, filler: ()) { a, b, c, _ in (a, b, c) }
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
        combiningLatest(first, second, third, fourth, filler: nil) { ($0, $1, $2, $3) }
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
        first.combiningLatest(second, transform)
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
        combiningLatest(first, second, third, Flow<Void, Failure>?.none, filler: ()) { a, b, c, _ in transform(a, b, c) }
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
        combiningLatest(first, second, third, fourth, filler: nil, transform)
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
    /// sends, once all have sent. Finishes at once, without a value, when `flows` is empty (as
    /// ``zip(_:)-type.method`` and ``merge(_:)`` do; RxSwift's sends one empty array first, since
    /// ReactiveX/RxSwift#1879), otherwise as ``combineLatest(_:_:)-type.method``.
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
        first.zipping(second) { ($0, $1) }
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
        zipping(first, second, third, Flow<Void, Failure>?.none, filler: ()) { a, b, c, _ in (a, b, c) }
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
        zipping(first, second, third, fourth, filler: nil) { ($0, $1, $2, $3) }
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
        first.zipping(second, transform)
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
        zipping(first, second, third, Flow<Void, Failure>?.none, filler: ()) { a, b, c, _ in transform(a, b, c) }
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
        zipping(first, second, third, fourth, filler: nil, transform)
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
    /// `flows` is empty (as RxSwift's does), otherwise as ``zip(_:_:)-type.method``.
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
