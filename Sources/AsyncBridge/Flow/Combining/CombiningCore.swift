// The one core of combineLatest and zip, whatever the number of flows: a subscription's
// sources all feed one fan-in, whose handler asks a state machine (the rule) what to do with
// each event, then does it; its ``CombiningSources`` hold the values. Two to four flows keep
// them typed (``TypedSources``): boxed as `any Sendable` a value costs a copy and a dynamic
// cast, and Swift 6.3 does not specialise over a pack.

/// An event of one source of a combining operator: a value, tagged with its source by
/// `Value`, or the completion of the source at an index.
@usableFromInline
enum CombiningEvent<Value: Sendable, Failure: Error>: Sendable {
    case value(Value)
    case completed(Int, FlowCompletion<Failure>)
}

/// What the core does after an event.
@usableFromInline
enum CombiningAction<Combined> {
    case none
    /// Send one value of each source, then finish if `thenFinish` (zip used up a finished
    /// source).
    case send(Combined, thenFinish: Bool)
    case finish
}

/// The rule of a combining operator, fed one event at a time (the fan-in serialises them).
/// A failure of any source fails the combined flow at once, whatever the rule: the core sees
/// to it without asking.
@usableFromInline
protocol CombiningStateMachine: Sendable {
    associatedtype Sources: CombiningSources
    var sourceCount: Int { get }
    mutating func received(_ value: Sources.Value) -> CombiningAction<Sources.Combined>
    mutating func finished(at index: Int) -> CombiningAction<Sources.Combined>
}

/// combineLatest: each source's latest value, every time one sends, once all have sent.
/// Finishes when all have finished, or as soon as one finishes without having sent a value
/// (no combination can ever come).
@usableFromInline
struct CombineLatestStateMachine<Sources: CombiningSources>: CombiningStateMachine {
    @usableFromInline var sources: Sources
    /// Sources that have sent no value yet.
    @usableFromInline var missing: Int
    @usableFromInline var finishedCount = 0

    @inlinable
    init(_ sources: Sources) {
        self.sources = sources
        missing = sources.count
    }

    @inlinable
    var sourceCount: Int { sources.count }

    @inlinable @inline(__always)
    mutating func received(_ value: Sources.Value) -> CombiningAction<Sources.Combined> {
        if sources.keepLatest(value) { missing -= 1 }
        return missing == 0 ? .send(sources.latest, thenFinish: false) : .none
    }

    @inlinable @inline(__always)
    mutating func finished(at index: Int) -> CombiningAction<Sources.Combined> {
        finishedCount += 1
        return finishedCount == sources.count || !sources.hasLatest(at: index) ? .finish : .none
    }
}

/// zip: the n-th value of each source. Finishes as soon as a source has finished and every
/// value it sent has been zipped (no further combination can come).
///
/// An event completes at most one combination: before it, none could be made (the previous
/// event took the one it completed), so a source's new value completes one only if its queue
/// was empty and no other is.
@usableFromInline
struct ZipStateMachine<Sources: CombiningSources>: CombiningStateMachine {
    @usableFromInline var sources: Sources
    /// Values received and not zipped yet, per source.
    @usableFromInline var available: [Int]
    @usableFromInline var isFinished: [Bool]
    /// How many sources have no value available: a combination can be made when none.
    @usableFromInline var emptyCount: Int
    /// A source has finished and has no value left: no combination can come.
    @usableFromInline var isExhausted = false

    @inlinable
    init(_ sources: Sources) {
        self.sources = sources
        available = Array(repeating: 0, count: sources.count)
        isFinished = Array(repeating: false, count: sources.count)
        emptyCount = sources.count
    }

    @inlinable
    var sourceCount: Int { sources.count }

    @inlinable @inline(__always)
    mutating func received(_ value: Sources.Value) -> CombiningAction<Sources.Combined> {
        let index = sources.enqueue(value)
        if available[index] == 0 { emptyCount -= 1 }
        available[index] += 1
        return next()
    }

    @inlinable @inline(__always)
    mutating func finished(at index: Int) -> CombiningAction<Sources.Combined> {
        isFinished[index] = true
        if available[index] == 0 { isExhausted = true }
        return next()
    }

    /// The combination now complete, if any, and whether the flow ends.
    @inlinable @inline(__always)
    mutating func next() -> CombiningAction<Sources.Combined> {
        guard emptyCount == 0, !available.isEmpty else { return isExhausted ? .finish : .none }
        let combined = sources.dequeue()
        for index in available.indices {
            available[index] -= 1
            if available[index] == 0 {
                emptyCount += 1
                if isFinished[index] { isExhausted = true }
            }
        }
        return .send(combined, thenFinish: isExhausted)
    }
}

extension Flow {
    /// The core of every combineLatest and zip: one fan-in per subscription, fed by
    /// `subscribe`, whose events go through a copy of `machine`; each combination it makes is
    /// sent through `combine`. Finishes at once when there is no source.
    @inlinable
    static func combining<Machine: CombiningStateMachine>(
        _ machine: Machine,
        subscribing subscribe: @escaping @Sendable (FanIn<CombiningEvent<Machine.Sources.Value, Failure>, Element, Failure>) -> Void,
        _ combine: @escaping @Sendable (Machine.Sources.Combined) -> Element
    ) -> Flow {
        Flow { subscriber in
            let state = SerialState(machine)
            let fanIn = FanIn<CombiningEvent<Machine.Sources.Value, Failure>, Element, Failure>(
                downstream: subscriber, sourceCount: machine.sourceCount
            ) { fanIn, event in
                let action: CombiningAction<Machine.Sources.Combined>
                switch event {
                case .value(let value): action = state.value.received(value)
                case .completed(_, .failure(let error)): return fanIn.end(.failure(error))
                case .completed(let index, .finished): action = state.value.finished(at: index)
                }
                switch action {
                case .none: break
                case .send(let combined, let thenFinish):
                    fanIn.send(combine(combined))
                    if thenFinish { fanIn.end(.finished) }
                case .finish: fanIn.end(.finished)
                }
            }
            guard machine.sourceCount > 0 else { return fanIn.end(.finished) }
            subscribe(fanIn)
        }
    }

    /// Subscribes this flow to `fanIn` as its source number `index`, its values tagged by
    /// `tag`.
    @inlinable
    func feed<Value, Output>(
        _ fanIn: FanIn<CombiningEvent<Value, Failure>, Output, Failure>,
        at index: Int,
        _ tag: @escaping @Sendable (Element) -> Value
    ) {
        run(FlowSubscriber(
            subscription: fanIn.sources[index],
            receive: { fanIn.submit(.value(tag($0))) },
            complete: { _ = fanIn.submit(.completed(index, $0)) }
        ))
    }
}
