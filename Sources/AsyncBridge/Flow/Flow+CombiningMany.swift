// combineLatest and zip over any number of flows: the parameter-pack forms (`Flow.combineLatest(a,
// b, c)`, `a.zip(b, c)`) and the collection forms (`Flow.zip([flows])`). All go through one
// fan-in (one `SerialDrain`) for every source, whatever their count: the typed forms box each
// value as `any Sendable` on its way in (no allocation for a value of up to three words) and
// unbox it into the tuple, because the events of differently typed sources must share one queue.

/// An event of one of several sources, tagged with the source's index.
@usableFromInline
typealias IndexedEvent<Element: Sendable, Failure: Error> = (index: Int, event: FlowEvent<Element, Failure>)

/// Hands the combining operators the value of each source, by index, to build their output
/// from. The builders call it once per source, in order.
@usableFromInline
typealias ValueAt<Element> = (Int) -> Element

extension Flow {
    /// Subscribes each of `flows` to `fanIn`, tagging its events with its index.
    @inlinable
    static func feed<Output>(_ flows: [Flow], into fanIn: FanIn<IndexedEvent<Element, Failure>, Output, Failure>) {
        for (index, flow) in flows.enumerated() {
            flow.feed(fanIn, through: fanIn.sources[index]) { (index, $0) }
        }
    }

    /// This flow with its values boxed, for the typed forms.
    @inlinable
    var boxed: Flow<any Sendable, Failure> {
        let run = self.run
        return Flow<any Sendable, Failure> { subscriber in
            run(FlowSubscriber(
                subscription: subscriber.subscription,
                receive: { subscriber.receive($0) },
                completeMarkingSubscription: subscriber.complete
            ))
        }
    }

    /// combineLatest over `flows`: `combine` builds the output from the latest value of each.
    @inlinable
    static func combiningLatest<Output>(
        _ flows: [Flow],
        _ combine: @escaping @Sendable (ValueAt<Element>) -> Output
    ) -> Flow<Output, Failure> {
        Flow<Output, Failure> { subscriber in
            let count = flows.count
            let state = SerialState((latest: [Element?](repeating: nil, count: count), missing: count, finished: 0))
            let fanIn = FanIn<IndexedEvent<Element, Failure>, Output, Failure>(
                downstream: subscriber, sourceCount: count
            ) { fanIn, tagged in
                switch tagged.event {
                case .value(let value):
                    if state.value.latest[tagged.index] == nil { state.value.missing -= 1 }
                    state.value.latest[tagged.index] = value
                    if state.value.missing == 0 { fanIn.send(combine { state.value.latest[$0]! }) }
                case .failure(let error):
                    fanIn.end(.failure(error))
                case .finished:
                    state.value.finished += 1
                    if state.value.finished == count || state.value.latest[tagged.index] == nil { fanIn.end(.finished) }
                }
            }
            guard count > 0 else { return fanIn.end(.finished) }
            feed(flows, into: fanIn)
        }
    }

    /// zip over `flows`: `combine` builds the output from the oldest unpaired value of each.
    @inlinable
    static func zipping<Output>(
        _ flows: [Flow],
        _ combine: @escaping @Sendable (ValueAt<Element>) -> Output
    ) -> Flow<Output, Failure> {
        Flow<Output, Failure> { subscriber in
            let queues = SerialState(ZipQueues<Element>(count: flows.count))
            let fanIn = FanIn<IndexedEvent<Element, Failure>, Output, Failure>(
                downstream: subscriber, sourceCount: flows.count
            ) { fanIn, tagged in
                switch tagged.event {
                case .value(let value): queues.value.append(value, at: tagged.index)
                case .failure(let error): return fanIn.end(.failure(error))
                case .finished: queues.value.finish(at: tagged.index)
                }
                while queues.value.canZip {
                    fanIn.send(combine { queues.value.takeFirst(at: $0) })
                }
                if queues.value.isExhausted { fanIn.end(.finished) }
            }
            guard !flows.isEmpty else { return fanIn.end(.finished) }
            feed(flows, into: fanIn)
        }
    }
}

/// The values that `zip` has not paired yet, one queue per source.
@usableFromInline
struct ZipQueues<Element: Sendable>: Sendable {
    /// A queue is `values[head...]`; emptied, it is reset, keeping its capacity.
    @usableFromInline var values: [[Element]]
    @usableFromInline var heads: [Int]
    @usableFromInline var finished: [Bool]
    /// How many queues are empty: a tuple can be made when none is.
    @usableFromInline var emptyCount: Int
    /// A source has finished and its queue is empty: no tuple can come.
    @usableFromInline var isExhausted = false

    @inlinable
    init(count: Int) {
        values = Array(repeating: [], count: count)
        heads = Array(repeating: 0, count: count)
        finished = Array(repeating: false, count: count)
        emptyCount = count
    }

    @inlinable
    var canZip: Bool { emptyCount == 0 && !values.isEmpty }

    @inlinable
    mutating func append(_ value: Element, at index: Int) {
        if heads[index] == values[index].count { emptyCount -= 1 }
        values[index].append(value)
    }

    @inlinable
    mutating func finish(at index: Int) {
        finished[index] = true
        if heads[index] == values[index].count { isExhausted = true }
    }

    @inlinable
    mutating func takeFirst(at index: Int) -> Element {
        let value = values[index][heads[index]]
        heads[index] += 1
        if heads[index] == values[index].count {
            values[index].removeAll(keepingCapacity: true)
            heads[index] = 0
            emptyCount += 1
            if finished[index] { isExhausted = true }
        }
        return value
    }
}

extension Flow where Element == any Sendable {
    /// The boxed `flows`, and how to unbox their values into a tuple.
    @inlinable
    static func packing<First, Second, each Other>(
        _ first: Flow<First, Failure>,
        _ second: Flow<Second, Failure>,
        _ others: repeat Flow<each Other, Failure>
    ) -> (flows: [Flow], unpack: @Sendable (ValueAt<any Sendable>) -> (First, Second, (repeat each Other))) {
        var flows = [first.boxed, second.boxed]
        for other in repeat each others { flows.append(other.boxed) }
        return (flows, { value in
            var index = 2
            return (value(0) as! First, value(1) as! Second, (repeat unbox(value, &index, as: (each Other).self)))
        })
    }

    @inlinable
    static func unbox<Value>(_ value: ValueAt<any Sendable>, _ index: inout Int, as _: Value.Type) -> Value {
        defer { index += 1 }
        return value(index) as! Value
    }
}

extension Flow {
    /// The latest value of each flow, as a tuple, every time any of them sends, once all have
    /// sent: ``combineLatest(_:)`` for three or more flows (at least two: a tuple of one would
    /// be a value in parentheses).
    ///
    /// Finishes when all have finished, or as soon as one finishes without having sent a value
    /// (no tuple can ever come); fails as soon as any fails, cancelling the others. RxSwift
    /// finishes later when a source ends without a value (at another source's next value),
    /// Combine only once all have finished; see ``combineLatest(_:)`` for why we finish at
    /// once.
    ///
    /// RxSwift: `Observable.combineLatest(_:_:_:)`; Combine: `Publishers.CombineLatest3`,
    /// `Publishers.CombineLatest4`, `combineLatest(_:_:)`.
    ///
    /// ```swift
    /// let form = Flow.combineLatest(name, email, acceptsTerms)   // Flow<(String, String, Bool), Never>
    /// ```
    @inlinable
    public static func combineLatest<Second, each Other>(
        _ first: Flow,
        _ second: Flow<Second, Failure>,
        _ others: repeat Flow<each Other, Failure>
    ) -> Flow<(Element, Second, repeat each Other), Failure> {
        let (flows, unpack) = Flow<any Sendable, Failure>.packing(first, second, repeat each others)
        return Flow<any Sendable, Failure>.combiningLatest(flows) { value in
            let (first, second, others) = unpack(value)
            return (first, second, repeat each others)
        }
    }

    /// ``combineLatest(_:_:_:)``, passing the latest values to `transform` instead of making a
    /// tuple of them.
    ///
    /// RxSwift: `Observable.combineLatest(_:_:_:resultSelector:)`; Combine:
    /// `combineLatest(_:_:_:)` with a transform.
    ///
    /// ```swift
    /// let canSubmit = Flow.combineLatest(name, email, acceptsTerms) { !$0.isEmpty && $1.contains("@") && $2 }
    /// ```
    @inlinable
    public static func combineLatest<Second, each Other, Output>(
        _ first: Flow,
        _ second: Flow<Second, Failure>,
        _ others: repeat Flow<each Other, Failure>,
        transform: @escaping @Sendable (Element, Second, repeat each Other) -> Output
    ) -> Flow<Output, Failure> {
        let (flows, unpack) = Flow<any Sendable, Failure>.packing(first, second, repeat each others)
        return Flow<any Sendable, Failure>.combiningLatest(flows) { value in
            let (first, second, others) = unpack(value)
            return transform(first, second, repeat each others)
        }
    }

    /// The latest value of this flow and of each of `second`, `third`, `others`, as a tuple:
    /// ``combineLatest(_:_:_:)`` with this flow first.
    ///
    /// RxSwift: `Observable.combineLatest(_:_:_:)`; Combine: `combineLatest(_:_:)`,
    /// `combineLatest(_:_:_:)`.
    ///
    /// ```swift
    /// let form = name.combineLatest(email, acceptsTerms)   // Flow<(String, String, Bool), Never>
    /// ```
    @inlinable
    public func combineLatest<Second, Third, each Other>(
        _ second: Flow<Second, Failure>,
        _ third: Flow<Third, Failure>,
        _ others: repeat Flow<each Other, Failure>
    ) -> Flow<(Element, Second, Third, repeat each Other), Failure> {
        Self.combineLatest(self, second, third, repeat each others)
    }

    /// The latest value of this flow and of each of `second`, `others`, passed to `transform`:
    /// ``combineLatest(_:_:_:transform:)`` with this flow first.
    ///
    /// RxSwift: `Observable.combineLatest(_:_:resultSelector:)`; Combine: `combineLatest(_:_:)`
    /// with a transform.
    ///
    /// ```swift
    /// let canSubmit = email.combineLatest(password) { !$0.isEmpty && $1.count >= 8 }
    /// ```
    @inlinable
    public func combineLatest<Second, each Other, Output>(
        _ second: Flow<Second, Failure>,
        _ others: repeat Flow<each Other, Failure>,
        transform: @escaping @Sendable (Element, Second, repeat each Other) -> Output
    ) -> Flow<Output, Failure> {
        Self.combineLatest(self, second, repeat each others, transform: transform)
    }

    /// The latest value of each of `flows`, as an array in their order, every time any of them
    /// sends, once all have sent. Finishes at once when `flows` is empty (as RxSwift's does),
    /// otherwise as ``combineLatest(_:_:_:)``.
    ///
    /// RxSwift: `Observable.combineLatest(_:)` over a collection; Combine: (none).
    ///
    /// ```swift
    /// let allReady = Flow.combineLatest(services.map(\.isReady)).map { $0.allSatisfy { $0 } }
    /// ```
    @inlinable
    public static func combineLatest(_ flows: [Flow]) -> Flow<[Element], Failure> {
        combiningLatest(flows) { value in flows.indices.map(value) }
    }

    /// The n-th value of each flow, as a tuple: ``zip(_:)`` for three or more flows (at least
    /// two: a tuple of one would be a value in parentheses).
    ///
    /// Finishes as soon as one flow has finished and every value it sent has been zipped (no
    /// further tuple can come), cancelling the others; fails as soon as any fails, cancelling
    /// the others. Combine's behaviour; RxSwift finishes only once all have finished (see
    /// ``zip(_:)``).
    ///
    /// RxSwift: `Observable.zip(_:_:_:)`; Combine: `Publishers.Zip3`, `Publishers.Zip4`,
    /// `zip(_:_:)`.
    ///
    /// ```swift
    /// let rows = Flow.zip(names, ages, photos)   // Flow<(String, Int, Photo), any Error>
    /// ```
    @inlinable
    public static func zip<Second, each Other>(
        _ first: Flow,
        _ second: Flow<Second, Failure>,
        _ others: repeat Flow<each Other, Failure>
    ) -> Flow<(Element, Second, repeat each Other), Failure> {
        let (flows, unpack) = Flow<any Sendable, Failure>.packing(first, second, repeat each others)
        return Flow<any Sendable, Failure>.zipping(flows) { value in
            let (first, second, others) = unpack(value)
            return (first, second, repeat each others)
        }
    }

    /// ``zip(_:_:_:)``, passing the n-th values to `transform` instead of making a tuple of them.
    ///
    /// RxSwift: `Observable.zip(_:_:_:resultSelector:)`; Combine: `zip(_:_:_:)` with a transform.
    ///
    /// ```swift
    /// let rows = Flow.zip(names, ages, photos) { Row(name: $0, age: $1, photo: $2) }
    /// ```
    @inlinable
    public static func zip<Second, each Other, Output>(
        _ first: Flow,
        _ second: Flow<Second, Failure>,
        _ others: repeat Flow<each Other, Failure>,
        transform: @escaping @Sendable (Element, Second, repeat each Other) -> Output
    ) -> Flow<Output, Failure> {
        let (flows, unpack) = Flow<any Sendable, Failure>.packing(first, second, repeat each others)
        return Flow<any Sendable, Failure>.zipping(flows) { value in
            let (first, second, others) = unpack(value)
            return transform(first, second, repeat each others)
        }
    }

    /// The n-th value of this flow and of each of `second`, `third`, `others`, as a tuple:
    /// ``zip(_:_:_:)`` with this flow first.
    ///
    /// RxSwift: `Observable.zip(_:_:_:)`; Combine: `zip(_:_:)`, `zip(_:_:_:)`.
    ///
    /// ```swift
    /// let rows = names.zip(ages, photos)   // Flow<(String, Int, Photo), any Error>
    /// ```
    @inlinable
    public func zip<Second, Third, each Other>(
        _ second: Flow<Second, Failure>,
        _ third: Flow<Third, Failure>,
        _ others: repeat Flow<each Other, Failure>
    ) -> Flow<(Element, Second, Third, repeat each Other), Failure> {
        Self.zip(self, second, third, repeat each others)
    }

    /// The n-th value of this flow and of each of `second`, `others`, passed to `transform`:
    /// ``zip(_:_:_:transform:)`` with this flow first.
    ///
    /// RxSwift: `Observable.zip(_:_:resultSelector:)`; Combine: `zip(_:_:)` with a transform.
    ///
    /// ```swift
    /// let answered = questions.zip(answers) { "\($0): \($1)" }
    /// ```
    @inlinable
    public func zip<Second, each Other, Output>(
        _ second: Flow<Second, Failure>,
        _ others: repeat Flow<each Other, Failure>,
        transform: @escaping @Sendable (Element, Second, repeat each Other) -> Output
    ) -> Flow<Output, Failure> {
        Self.zip(self, second, repeat each others, transform: transform)
    }

    /// The n-th value of each of `flows`, as an array in their order. Finishes at once when
    /// `flows` is empty (as RxSwift's does), otherwise as ``zip(_:_:_:)``.
    ///
    /// RxSwift: `Observable.zip(_:)` over a collection; Combine: (none).
    ///
    /// ```swift
    /// let pages = Flow.zip(chapters.map(\.pages))   // the first page of each chapter, then the second…
    /// ```
    @inlinable
    public static func zip(_ flows: [Flow]) -> Flow<[Element], Failure> {
        zipping(flows) { value in flows.indices.map(value) }
    }
}
