import AsyncBridge
import OpenCombine

/// The points where AsyncBridge's documentation says it chose otherwise than Combine, each
/// listed once and applied by the harness: it turns what Combine did into what our
/// documentation promises (Combine's recorded events, or its pipeline), and nothing else may
/// differ. README.md ("Differential tests against OpenCombine") lists the same points.
enum DocumentedDifference: String, CaseIterable, Sendable {
    /// `combineLatest` (every arity and form) finishes as soon as a source finishes without
    /// having sent a value, since no output can come; Combine's finishes only once every source
    /// has finished. Flow/Combining/Flow+CombineLatest.swift; Migration.md, "Where RxSwift and Combine disagree".
    case combineLatestFinishesWhenASourceEndsEmpty
    /// `prefix(untilOutputFrom:)` fails when its trigger fails before sending a value, as
    /// RxSwift's `take(until:)`; Combine ignores the trigger's completion, failure included.
    /// Flow+Conditions.swift; Migration.md, "Where RxSwift and Combine disagree".
    case prefixUntilOutputFromFailsWithItsTrigger
    /// `flatMap(maxConcurrent:)`, `concatMap`, `merge(maxConcurrent:)` and `concat()` queue the
    /// outer values that come while every slot is busy; Combine's `flatMap(maxPublishers:)`
    /// requests less of its upstream, and a subject drops what it sends without demand. The
    /// Combine side gets a lossless queue in front (`losslessUpstream`). Flow+FlatMap.swift,
    /// Flow+Flatten.swift; README, Guarantees, 6; Migration.md, "Serialising requests without
    /// losing any".
    case flatMapQueuesWhatCombineDrops
    /// `prefix(n)` finishes as soon as its `n`-th value has been delivered (`prefix(0)` at
    /// once), as RxSwift's `take(n)`; Combine's, as OpenCombine implements it (its tests run
    /// against Combine too), finishes only when the value after those arrives (`prefix(0)` at
    /// the first value). Flow+Filtering.swift; Migration.md, "Where RxSwift and Combine
    /// disagree".
    case prefixFinishesWithItsLastValue

    /// The source that the `prefix(untilOutputFrom:)` and `drop(untilOutputFrom:)` cases use as
    /// their trigger.
    static let triggerSource = 1

    /// The events our documentation promises a subscriber, from those Combine sent it.
    func expected<Value>(
        from combine: [Stamped<Value>],
        script: Script,
        subscriber: Int,
        parameters: Parameters
    ) -> [Stamped<Value>] {
        switch self {
        case .combineLatestFinishesWhenASourceEndsEmpty:
            // The sources' events in the order the operator sees them (at a subscription, a
            // completed subject completes at once, in the order the sources are subscribed).
            let seen = (0..<script.sourceCount)
                .flatMap { source in
                    script.events(of: source, seenBy: subscriber).map { (step: $0.step, source: source, event: $0.event) }
                }
                .sorted { ($0.step, $0.source) < ($1.step, $1.source) }
            var sentAValue = Set<Int>()
            for (step, source, event) in seen {
                switch event {
                case .value: sentAValue.insert(source)
                case .failure: return combine
                case .finished where !sentAValue.contains(source): return combine.ending(at: step, with: .finished)
                case .finished: continue
                }
            }
            return combine
        case .prefixUntilOutputFromFailsWithItsTrigger:
            guard case let (step, .failure(error))? = script.events(of: Self.triggerSource, seenBy: subscriber).first else {
                return combine
            }
            return combine.ending(at: step, with: .failure(error))
        case .flatMapQueuesWhatCombineDrops:
            return combine
        case .prefixFinishesWithItsLastValue:
            // The step of the `count`-th value, or of the subscription for `prefix(0)`.
            guard let count = parameters.numbers["count"], let subscribed = script.lifetime(of: subscriber).subscribed else {
                return combine
            }
            let seen = script.events(of: 0, seenBy: subscriber)
            let values = seen.filter { if case .value = $0.event { return true } else { return false } }
            guard count == 0 || values.count >= count else { return combine }
            return combine.ending(at: count == 0 ? subscribed : values[count - 1].step, with: .finished)
        }
    }

    /// Combine's upstream of a `flatMap(maxPublishers:)` made lossless, as
    /// `flatMapQueuesWhatCombineDrops` says (left as it is only to show that the point is real).
    static func losslessUpstream<Upstream: Publisher>(
        _ upstream: Upstream,
        _ parameters: Parameters
    ) -> AnyPublisher<Upstream.Output, Upstream.Failure> {
        guard parameters.appliesDifferences else { return upstream.eraseToAnyPublisher() }
        return upstream.buffer(size: .max, prefetch: .byRequest, whenFull: .dropNewest).eraseToAnyPublisher()
    }
}

extension Array {
    /// These events ended by `completion` after the values of `step`, unless they had ended
    /// before.
    func ending<Value>(at step: Int, with completion: FlowEvent<Value, TestError>) -> [Stamped<Value>]
    where Element == Stamped<Value> {
        if contains(where: { $0.isCompletion && $0.step < step }) { return self }
        return filter { !$0.isCompletion && $0.step <= step } + [Stamped(step: step, event: completion)]
    }
}
