import AsyncBridge
import OpenCombine

// The operators compared, each with the Combine operator it is compared with. A parameter
// (a threshold, a count, a form of the call) is drawn per case and shown in a report.
//
// Not here, and why: `output(at:)`, `output(in:)`, `tryPrefix(while:)` and `tryDrop(while:)`
// have no AsyncBridge counterpart; `merge` and `combineLatest` are not in OpenCombine 0.14.0,
// so they are compared with models of Combine's documented behaviour built from OpenCombine's
// `flatMap` (`CombineModel`); time, threads and demand are other suites' subject.
extension DifferentialOperator {
    static let all: [DifferentialOperator] = transforming + filtering + reducing + combining + flattening
        + failing + sharing

    static let transforming: [DifferentialOperator] = [
        .compare("map") { p, s, c in
            let factor = p.int("factor", in: 1...3)
            let transform: @Sendable (Int) -> Int = { $0 * factor + 1 }
            return Pipelines(s[0].map(transform), c[0].map(transform))
        },
        .compare("compactMap") { p, s, c in
            let divisor = p.int("divisor", in: 2...3)
            let transform: @Sendable (Int) -> Int? = { $0 % divisor == 0 ? nil : $0 * 10 }
            return Pipelines(s[0].compactMap(transform), c[0].compactMap(transform))
        },
        .compare("scan") { _, s, c in
            Pipelines(s[0].scan(0) { $0 * 2 + $1 }, c[0].scan(0) { $0 * 2 + $1 })
        },
        .compare("tryMap") { p, s, c in
            let bad = p.int("throwsAt", in: 0...5)
            let transform: @Sendable (Int) throws(TestError) -> Int = { value throws(TestError) in try checked(value, throwingAt: bad) * 2 }
            return Pipelines(s[0].tryMap(transform), c[0].tryMap(transform).typed)
        },
        .compare("tryCompactMap") { p, s, c in
            let bad = p.int("throwsAt", in: 0...5)
            let transform: @Sendable (Int) throws(TestError) -> Int? = { value throws(TestError) in try checked(value, throwingAt: bad) % 2 == 0 ? nil : value }
            return Pipelines(s[0].tryCompactMap(transform), c[0].tryCompactMap(transform).typed)
        },
        .compare("tryScan") { p, s, c in
            let bad = p.int("throwsAt", in: 0...5)
            let accumulate: @Sendable (Int, Int) throws(TestError) -> Int = { a, b throws(TestError) in a + (try checked(b, throwingAt: bad)) }
            return Pipelines(s[0].tryScan(0, accumulate), c[0].tryScan(0, accumulate).typed)
        },
    ]

    static let filtering: [DifferentialOperator] = [
        .compare("filter") { p, s, c in
            let divisor = p.int("divisor", in: 1...3)
            let isIncluded: @Sendable (Int) -> Bool = { $0 % divisor == 0 }
            return Pipelines(s[0].filter(isIncluded), c[0].filter(isIncluded))
        },
        .compare("tryFilter") { p, s, c in
            let bad = p.int("throwsAt", in: 0...5)
            let isIncluded: @Sendable (Int) throws(TestError) -> Bool = { value throws(TestError) in try checked(value, throwingAt: bad) % 2 == 0 }
            return Pipelines(s[0].tryFilter(isIncluded), c[0].tryFilter(isIncluded).typed)
        },
        .compare("removeDuplicates") { _, s, c in
            Pipelines(s[0].removeDuplicates(), c[0].removeDuplicates())
        },
        .compare("removeDuplicates(by:)") { _, s, c in
            let isDuplicate: @Sendable (Int, Int) -> Bool = { $0 % 3 == $1 % 3 }
            return Pipelines(s[0].removeDuplicates(by: isDuplicate), c[0].removeDuplicates(by: isDuplicate))
        },
        .compare("tryRemoveDuplicates(by:)") { p, s, c in
            let bad = p.int("throwsAt", in: 0...5)
            let isDuplicate: @Sendable (Int, Int) throws(TestError) -> Bool = { a, b throws(TestError) in a == (try checked(b, throwingAt: bad)) }
            return Pipelines(s[0].tryRemoveDuplicates(by: isDuplicate), c[0].tryRemoveDuplicates(by: isDuplicate).typed)
        },
        .compare("prefix", difference: .prefixFinishesWithItsLastValue) { p, s, c in
            let count = p.int("count", in: 0...4)
            return Pipelines(s[0].prefix(count), c[0].prefix(count))
        },
        .compare("dropFirst") { p, s, c in
            let count = p.int("count", in: 0...3)
            return Pipelines(s[0].dropFirst(count), c[0].dropFirst(count))
        },
        .compare("first") { _, s, c in
            Pipelines(s[0].first(), c[0].first())
        },
        .compare("first(where:)") { p, s, c in
            let least = p.int("least", in: 0...5)
            return Pipelines(s[0].first { $0 >= least }, c[0].first { $0 >= least })
        },
        .compare("tryFirst(where:)") { p, s, c in
            let bad = p.int("throwsAt", in: 0...5)
            let predicate: @Sendable (Int) throws(TestError) -> Bool = { value throws(TestError) in try checked(value, throwingAt: bad) >= 3 }
            return Pipelines(s[0].tryFirst(where: predicate), c[0].tryFirst(where: predicate).typed)
        },
        .compare("last") { _, s, c in
            Pipelines(s[0].last(), c[0].last())
        },
        .compare("last(where:)") { p, s, c in
            let bad = p.int("throwsAt", in: 0...6)
            let predicate: @Sendable (Int) throws(TestError) -> Bool = { value throws(TestError) in try checked(value, throwingAt: bad) % 2 == 1 }
            return Pipelines(s[0].last(where: predicate), c[0].tryLast(where: predicate).typed)
        },
        .compare("prefix(while:)") { p, s, c in
            let bound = p.int("bound", in: 1...5)
            return Pipelines(s[0].prefix { $0 < bound }, c[0].prefix { $0 < bound })
        },
        .compare("drop(while:)") { p, s, c in
            let bound = p.int("bound", in: 1...5)
            return Pipelines(s[0].drop { $0 < bound }, c[0].drop { $0 < bound })
        },
        .compare("prefix(untilOutputFrom:)", sources: 2...2, difference: .prefixUntilOutputFromFailsWithItsTrigger) { _, s, c in
            let trigger = DocumentedDifference.triggerSource
            return Pipelines(s[0].prefix(untilOutputFrom: s[trigger]), c[0].prefix(untilOutputFrom: c[trigger]))
        },
        .compare("drop(untilOutputFrom:)", sources: 2...2) { _, s, c in
            let trigger = DocumentedDifference.triggerSource
            return Pipelines(s[0].drop(untilOutputFrom: s[trigger]), c[0].drop(untilOutputFrom: c[trigger]))
        },
        .compare("ignoreOutput") { _, s, c in
            Pipelines(s[0].ignoreOutput(), c[0].ignoreOutput())
        },
    ]

    static let reducing: [DifferentialOperator] = [
        .compare("reduce") { p, s, c in
            // Ours takes a closure that may throw: Combine's reduce and tryReduce in one.
            let bad = p.int("throwsAt", in: 0...6)
            let accumulate: @Sendable (Int, Int) throws(TestError) -> Int = { a, b throws(TestError) in a * 2 + (try checked(b, throwingAt: bad)) }
            return Pipelines(s[0].reduce(1, accumulate), c[0].tryReduce(1, accumulate).typed)
        },
        .compare("collect") { _, s, c in
            Pipelines(s[0].collect(), c[0].collect())
        },
        .compare("collect(count)") { p, s, c in
            let count = p.int("count", in: 1...3)
            return Pipelines(s[0].collect(count), c[0].collect(count))
        },
        .compare("count") { _, s, c in
            Pipelines(s[0].count(), c[0].count())
        },
        .compare("contains") { p, s, c in
            let element = p.int("element", in: 0...5)
            return Pipelines(s[0].contains(element), c[0].contains(element))
        },
        .compare("contains(where:)") { p, s, c in
            let bad = p.int("throwsAt", in: 0...6)
            let predicate: @Sendable (Int) throws(TestError) -> Bool = { value throws(TestError) in try checked(value, throwingAt: bad) == 4 }
            return Pipelines(s[0].contains(where: predicate), c[0].tryContains(where: predicate).typed)
        },
        .compare("allSatisfy") { p, s, c in
            let bad = p.int("throwsAt", in: 0...6)
            let predicate: @Sendable (Int) throws(TestError) -> Bool = { value throws(TestError) in try checked(value, throwingAt: bad) < 4 }
            return Pipelines(s[0].allSatisfy(predicate), c[0].tryAllSatisfy(predicate).typed)
        },
        .compare("min") { _, s, c in
            Pipelines(s[0].min(), c[0].min())
        },
        .compare("max") { _, s, c in
            Pipelines(s[0].max(), c[0].max())
        },
        .compare("min(by:)") { p, s, c in
            // Equal by the order, different values: which of equal ones wins shows.
            let bad = p.int("throwsAt", in: 0...6)
            let order: @Sendable (Int, Int) throws(TestError) -> Bool = { a, b throws(TestError) in try checked(a, throwingAt: bad) % 3 < b % 3 }
            return Pipelines(s[0].min(by: order), c[0].tryMin(by: order).typed)
        },
        .compare("max(by:)") { p, s, c in
            let bad = p.int("throwsAt", in: 0...6)
            let order: @Sendable (Int, Int) throws(TestError) -> Bool = { a, b throws(TestError) in try checked(a, throwingAt: bad) % 3 < b % 3 }
            return Pipelines(s[0].max(by: order), c[0].tryMax(by: order).typed)
        },
        .compare("replaceEmpty(with:)") { _, s, c in
            Pipelines(s[0].replaceEmpty(with: -1), c[0].replaceEmpty(with: -1))
        },
    ]

    static let combining: [DifferentialOperator] = [
        .compare("merge", sources: 2...3) { p, s, c in
            let flow: Flow<Int, TestError>
            switch (p.pick("form", ["method", "Flow.merge(…)", "Flow.merge([…])"]), s.count) {
            case ("method", 2): flow = s[0].merge(with: s[1])
            case ("method", _): flow = s[0].merge(with: s[1], s[2])
            case ("Flow.merge(…)", 2): flow = Flow.merge(s[0], s[1])
            case ("Flow.merge(…)", _): flow = Flow.merge(s[0], s[1], s[2])
            default: flow = Flow.merge(s)
            }
            return Pipelines(flow, CombineModel.merge(c))
        },
        .compare("combineLatest", sources: 2...3, difference: .combineLatestFinishesWhenASourceEndsEmpty) { p, s, c in
            let flow: Flow<[Int], TestError>
            switch (p.pick("form", ["method", "Flow.combineLatest(…)", "Flow.combineLatest([…])"]), s.count) {
            case ("method", 2): flow = s[0].combineLatest(s[1]).map { [$0, $1] }
            case ("method", _): flow = s[0].combineLatest(s[1], s[2]).map { [$0, $1, $2] }
            case ("Flow.combineLatest(…)", 2): flow = Flow.combineLatest(s[0], s[1]).map { [$0, $1] }
            case ("Flow.combineLatest(…)", _): flow = Flow.combineLatest(s[0], s[1], s[2]).map { [$0, $1, $2] }
            default: flow = Flow.combineLatest(s)
            }
            return Pipelines(flow, CombineModel.combineLatest(c))
        },
        .compare("zip", sources: 2...3) { p, s, c in
            let flow: Flow<[Int], TestError>
            switch (p.pick("form", ["method", "Flow.zip(…)", "Flow.zip([…])"]), s.count) {
            case ("method", 2): flow = s[0].zip(s[1]).map { [$0, $1] }
            case ("method", _): flow = s[0].zip(s[1], s[2]).map { [$0, $1, $2] }
            case ("Flow.zip(…)", 2): flow = Flow.zip(s[0], s[1]).map { [$0, $1] }
            case ("Flow.zip(…)", _): flow = Flow.zip(s[0], s[1], s[2]).map { [$0, $1, $2] }
            default: flow = Flow.zip(s)
            }
            return s.count == 2
                ? Pipelines(flow, c[0].zip(c[1]).map { [$0, $1] })
                : Pipelines(flow, c[0].zip(c[1], c[2]).map { [$0, $1, $2] })
        },
        .compare("append(_:)", sources: 2...2) { _, s, c in
            Pipelines(s[0].append(s[1]), c[0].append(c[1]))
        },
        .compare("prepend(_:)", sources: 2...2) { _, s, c in
            Pipelines(s[0].prepend(s[1]), c[0].prepend(c[1]))
        },
        .compare("append(values)") { _, s, c in
            Pipelines(s[0].append(7, 8), c[0].append(7, 8))
        },
        .compare("prepend(values)") { _, s, c in
            Pipelines(s[0].prepend(7, 8), c[0].prepend(7, 8))
        },
    ]

    /// Outer values come from source 0; a value `v` maps to an inner that is source 1 or 2
    /// (by parity), its values tagged with `v` (`v * 100 + value`).
    static let flattening: [DifferentialOperator] = [
        .compare("flatMap", sources: 3...3, stepOrder: .unspecified) { _, s, c in
            Pipelines(s[0].flatMap { inner(s, $0) }, c[0].flatMap { inner(c, $0) })
        },
        .compare("flatMap(maxConcurrent:)", sources: 3...3, stepOrder: .unspecified, difference: .flatMapQueuesWhatCombineDrops) { p, s, c in
            let limit = p.int("limit", in: 1...3)
            let flow = p.pick("form", ["flatMap(maxConcurrent:)", "map.merge(maxConcurrent:)"]) == "flatMap(maxConcurrent:)"
                ? s[0].flatMap(maxConcurrent: limit) { inner(s, $0) }
                : s[0].map { inner(s, $0) }.merge(maxConcurrent: limit)
            let upstream = DocumentedDifference.losslessUpstream(c[0], p)
            return Pipelines(flow, upstream.flatMap(maxPublishers: .max(limit)) { inner(c, $0) })
        },
        .compare("concatMap", sources: 3...3, difference: .flatMapQueuesWhatCombineDrops) { p, s, c in
            let flow = p.pick("form", ["concatMap", "map.concat()"]) == "concatMap"
                ? s[0].concatMap { inner(s, $0) }
                : s[0].map { inner(s, $0) }.concat()
            let upstream = DocumentedDifference.losslessUpstream(c[0], p)
            return Pipelines(flow, upstream.flatMap(maxPublishers: .max(1)) { inner(c, $0) })
        },
        .compare("flatMapLatest", sources: 3...3) { _, s, c in
            Pipelines(s[0].flatMapLatest { inner(s, $0) }, c[0].map { inner(c, $0) }.switchToLatest())
        },
        .compare("switchToLatest", sources: 3...3) { _, s, c in
            Pipelines(s[0].map { inner(s, $0) }.switchToLatest(), c[0].map { inner(c, $0) }.switchToLatest())
        },
    ]

    static let failing: [DifferentialOperator] = [
        .compare("catch", sources: 2...2) { _, s, c in
            Pipelines(s[0].catch { error in s[1].map { error.code * 100 + $0 } }, c[0].catch { error in c[1].map { error.code * 100 + $0 } })
        },
        .compare("tryCatch", sources: 2...2) { p, s, c in
            let bad = p.int("throwsFor", in: 1...3)
            return Pipelines(
                s[0].tryCatch { error throws(TestError) in
                    guard error.code != bad else { throw TestError(code: 20 + error.code) }
                    return s[1].map { error.code * 100 + $0 }
                },
                c[0].tryCatch { error in
                    guard error.code != bad else { throw TestError(code: 20 + error.code) }
                    return c[1].map { error.code * 100 + $0 }
                }.typed
            )
        },
        .compare("replaceError(with:)") { _, s, c in
            Pipelines(
                s[0].replaceError(with: -1).setFailureType(to: TestError.self),
                c[0].replaceError(with: -1).setFailureType(to: TestError.self)
            )
        },
        .compare("mapError") { _, s, c in
            Pipelines(s[0].mapError { TestError(code: $0.code + 10) }, c[0].mapError { TestError(code: $0.code + 10) })
        },
    ]

    static let sharing: [DifferentialOperator] = [
        // One pipeline per case: its subscribers share the connection.
        .compare("share") { _, s, c in
            Pipelines(s[0].map { $0 * 10 }.share(), c[0].map { $0 * 10 }.share())
        },
        // The subjects themselves, watched by subscribers that come and go.
        .compare("LiveSubject / PassthroughSubject") { _, s, c in
            Pipelines(s[0], c[0])
        },
        .compare("LatestValueSubject / CurrentValueSubject", withInitialValues: true) { _, s, c in
            Pipelines(s[0], c[0])
        },
    ]

    /// The inner flow of the flattening cases for outer value `value`.
    private static func inner(_ sources: [Flow<Int, TestError>], _ value: Int) -> Flow<Int, TestError> {
        sources[1 + value % 2].map { value * 100 + $0 }
    }

    /// The inner publisher of the flattening cases for outer value `value`.
    private static func inner(_ sources: [AnyPublisher<Int, TestError>], _ value: Int) -> AnyPublisher<Int, TestError> {
        sources[1 + value % 2].map { value * 100 + $0 }.eraseToAnyPublisher()
    }
}

/// `value`, unless it is `bad`: then the closures of the `try…` cases throw.
private func checked(_ value: Int, throwingAt bad: Int) throws(TestError) -> Int {
    if value == bad { throw TestError(code: 10 + value) }
    return value
}

extension Publisher where Failure == any Error {
    /// A `try…` operator's failure as the `TestError` its closure threw (Combine widens it to
    /// `any Error`; AsyncBridge keeps it typed).
    var typed: Publishers.MapError<Self, TestError> {
        mapError { $0 as! TestError }
    }
}

/// Combine's operators that OpenCombine 0.14.0 lacks, as Apple documents them, built from
/// OpenCombine's `flatMap` (which subscribes each source and merges their events).
enum CombineModel {
    /// `Publishers.MergeMany`: "The merged publisher continues to emit elements until all
    /// upstream publishers finish. If an upstream publisher produces an error, the merged
    /// publisher fails with that error."
    static func merge<Output>(_ sources: [AnyPublisher<Output, TestError>]) -> AnyPublisher<Output, TestError> {
        Publishers.Sequence<[AnyPublisher<Output, TestError>], TestError>(sequence: sources)
            .flatMap { $0 }
            .eraseToAnyPublisher()
    }

    /// `combineLatest`: once every source has sent a value, the latest of each, every time one
    /// sends. "All upstream publishers need to finish for this publisher to finish. If an
    /// upstream publisher never publishes a value, this publisher never finishes. If any of the
    /// combined publishers terminates with a failure, this publisher also fails."
    static func combineLatest(_ sources: [AnyPublisher<Int, TestError>]) -> AnyPublisher<[Int], TestError> {
        let tagged = sources.enumerated().map { index, source in source.map { (index, $0) }.eraseToAnyPublisher() }
        return merge(tagged)
            .scan([Int?](repeating: nil, count: sources.count)) { latest, value in
                var latest = latest
                latest[value.0] = value.1
                return latest
            }
            .compactMap { latest in latest.contains(nil) ? nil : latest.compactMap { $0 } }
            .eraseToAnyPublisher()
    }
}
