/// The values a combining operator keeps of its sources: per source, the latest value (for
/// combineLatest) and a first-in, first-out queue (for zip; a ``RingBuffer``, so taking a
/// combination is O(1)). ``TypedSources`` keeps two to four sources of their own element types,
/// ``ArraySources`` a collection of sources of one type.
///
/// Their per-value methods, and those of the state machines, are always inlined: left to the
/// optimiser, zip of three's per-value path is slower.
@usableFromInline
protocol CombiningSources: Sendable {
    /// A value of one source, tagged with its source.
    associatedtype Value: Sendable
    /// One value of each source.
    associatedtype Combined

    var count: Int { get }

    /// Keeps `value` as its source's latest; returns whether it is the first that source sent.
    mutating func keepLatest(_ value: Value) -> Bool
    /// Whether the source at `index` has sent a value.
    func hasLatest(at index: Int) -> Bool
    /// The latest value of each source; every source must have one.
    var latest: Combined { get }

    /// Queues `value` after the earlier ones of its source; returns the source's index.
    mutating func enqueue(_ value: Value) -> Int
    /// Takes the first queued value of each source; no queue may be empty.
    mutating func dequeue() -> Combined
}

/// Two, three or four sources, each of its own element type. With two or three, the missing
/// ones (`C`, `D`, usually `Void`) are never subscribed: their `fillers` stand for their values.
@usableFromInline
struct TypedSources<A: Sendable, B: Sendable, C: Sendable, D: Sendable>: CombiningSources {
    @usableFromInline
    enum Value: Sendable {
        case first(A)
        case second(B)
        case third(C)
        case fourth(D)
    }

    @usableFromInline let count: Int
    /// The values of the third and fourth sources when they are missing, otherwise `nil`.
    @usableFromInline let fillers: (C?, D?)
    @usableFromInline var slots: (A?, B?, C?, D?)
    @usableFromInline var queues = (RingBuffer<A>(), RingBuffer<B>(), RingBuffer<C>(), RingBuffer<D>())

    /// Four sources, or fewer when `fillers` stand for the missing ones.
    @inlinable
    init(filling fillers: (C?, D?)) {
        count = 4 - (fillers.0 == nil ? 0 : 1) - (fillers.1 == nil ? 0 : 1)
        self.fillers = fillers
        slots = (nil, nil, fillers.0, fillers.1)
    }

    @inlinable @inline(__always)
    mutating func keepLatest(_ value: Value) -> Bool {
        switch value {
        case .first(let value): defer { slots.0 = value }; return slots.0 == nil
        case .second(let value): defer { slots.1 = value }; return slots.1 == nil
        case .third(let value): defer { slots.2 = value }; return slots.2 == nil
        case .fourth(let value): defer { slots.3 = value }; return slots.3 == nil
        }
    }

    @inlinable @inline(__always)
    func hasLatest(at index: Int) -> Bool {
        switch index {
        case 0: slots.0 != nil
        case 1: slots.1 != nil
        case 2: slots.2 != nil
        default: slots.3 != nil
        }
    }

    @inlinable @inline(__always)
    var latest: (A, B, C, D) {
        (slots.0.unsafelyUnwrapped, slots.1.unsafelyUnwrapped, slots.2.unsafelyUnwrapped, slots.3.unsafelyUnwrapped)
    }

    @inlinable @inline(__always)
    mutating func enqueue(_ value: Value) -> Int {
        switch value {
        case .first(let value): queues.0.append(value); return 0
        case .second(let value): queues.1.append(value); return 1
        case .third(let value): queues.2.append(value); return 2
        case .fourth(let value): queues.3.append(value); return 3
        }
    }

    @inlinable @inline(__always)
    mutating func dequeue() -> (A, B, C, D) {
        let a = queues.0.removeFirst(), b = queues.1.removeFirst()
        let c = fillers.0 ?? queues.2.removeFirst()
        let d = fillers.1 ?? queues.3.removeFirst()
        return (a, b, c, d)
    }
}

/// Any number of sources of one element type, combined into arrays in their order.
@usableFromInline
struct ArraySources<Element: Sendable>: CombiningSources {
    @usableFromInline typealias Value = (index: Int, value: Element)

    @usableFromInline var slots: [Element?]
    @usableFromInline var queues: [RingBuffer<Element>]

    @inlinable
    init(count: Int) {
        slots = Array(repeating: nil, count: count)
        queues = Array(repeating: RingBuffer(), count: count)
    }

    @inlinable
    var count: Int { slots.count }

    @inlinable @inline(__always)
    mutating func keepLatest(_ value: Value) -> Bool {
        defer { slots[value.index] = value.value }
        return slots[value.index] == nil
    }

    @inlinable @inline(__always)
    func hasLatest(at index: Int) -> Bool { slots[index] != nil }

    @inlinable @inline(__always)
    var latest: [Element] { slots.map { $0.unsafelyUnwrapped } }

    @inlinable @inline(__always)
    mutating func enqueue(_ value: Value) -> Int {
        queues[value.index].append(value.value)
        return value.index
    }

    @inlinable @inline(__always)
    mutating func dequeue() -> [Element] {
        queues.indices.map { queues[$0].removeFirst() }
    }
}

extension Flow {
    /// combineLatest or zip (as `machine` makes them) of two to four flows; without `third` or
    /// `fourth`, their fillers stand for their values.
    @inlinable
    static func combining<Machine: CombiningStateMachine, B, C, D, Output>(
        _ machine: (TypedSources<Element, B, C, D>) -> Machine,
        _ first: Flow, _ second: Flow<B, Failure>, _ third: Flow<C, Failure>?, _ fourth: Flow<D, Failure>?,
        filling fillers: (C?, D?),
        _ combine: @escaping @Sendable ((Element, B, C, D)) -> Output
    ) -> Flow<Output, Failure> where Machine.Sources == TypedSources<Element, B, C, D> {
        Flow<Output, Failure>.combining(machine(TypedSources(filling: fillers)), subscribing: { fanIn in
            first.feed(fanIn, at: 0) { .first($0) }
            second.feed(fanIn, at: 1) { .second($0) }
            third?.feed(fanIn, at: 2) { .third($0) }
            fourth?.feed(fanIn, at: 3) { .fourth($0) }
        }, combine)
    }

    /// combineLatest or zip (as `machine` makes them) of `flows`, as arrays.
    @inlinable
    static func combining<Machine: CombiningStateMachine>(
        _ machine: (ArraySources<Element>) -> Machine, _ flows: [Flow]
    ) -> Flow<[Element], Failure> where Machine.Sources == ArraySources<Element> {
        Flow<[Element], Failure>.combining(machine(ArraySources(count: flows.count)), subscribing: { fanIn in
            for (index, flow) in flows.enumerated() {
                flow.feed(fanIn, at: index) { (index, $0) }
            }
        }, { $0 })
    }
}
