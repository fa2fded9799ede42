import AsyncBridge
import OpenCombine

/// The flatMap family with inner flows that stay open: the whole life of an inner (made,
/// subscribed, cancelled), not only the ones that complete at once (`flatmap-just`,
/// `flatmap-latest`).
///
/// Every inner is a flow that never sends and never completes (`Flow.never`; OpenCombine's
/// `Empty(completeImmediately: false)`), so the figures are the operator's own: subscribing an
/// inner, keeping it, cancelling it. (A subject's flow as the inner would add the cost of the
/// subject's subscribe and unsubscribe, which `subject-lifecycle` measures.)
///
/// `flatmap-latest-switch` (per switch): the outer subject sends, and the new inner replaces the
/// one still running, which is cancelled (search-as-you-type). `flatmap-open-inners-N` (per outer
/// value): a subscription takes `openInnersBatch` values from a synchronous outer source, each
/// mapped to an inner that stays open; at most N run and the others wait in a queue; then the
/// subscription is cancelled. Our `flatMap(maxConcurrent:)` queues the values beyond the limit
/// itself; OpenCombine's `flatMap(maxPublishers:)` asks its upstream for no more, so the peer
/// queues them in a `buffer(size:prefetch: .byRequest, whenFull:)` before it, the lossless
/// Combine spelling (without it, values that a subject sends meanwhile are dropped).
///
/// The `-live` rows are the same shapes with a fresh subject as each inner (`LiveSubject`;
/// OpenCombine's `PassthroughSubject`), as a screen that switches requests makes them: they add
/// the subject's making, subscribe and cancel to the operator's own cost.
let innerLifecycleCases: [BenchmarkCase] = [
    BenchmarkCase(
        id: "flatmap-latest-switch",
        peer: "OpenCombine map + switchToLatest",
        ratio: .speedup(atLeast: 2),
        allocations: .counted,
        ours: flowFlatMapLatestSwitch,
        peerBody: openCombineSwitchToLatestSwitch
    ),
    BenchmarkCase(
        id: "flatmap-latest-switch-live",
        peer: "OpenCombine map + switchToLatest, PassthroughSubject inners",
        ratio: .speedup(atLeast: 2),
        allocations: .counted,
        ours: flowFlatMapLatestSwitchLive,
        peerBody: openCombineSwitchToLatestSwitchLive
    ),
    BenchmarkCase(
        id: "flatmap-open-inners-10-live",
        peer: "OpenCombine buffer + flatMap(maxPublishers: .max(10)), PassthroughSubject inners",
        ratio: .speedup(atLeast: 2),
        allocations: .counted,
        ours: { try await flowFlatMapOpenLiveInners($0, maxConcurrent: 10) },
        peerBody: { try await openCombineFlatMapOpenLiveInners($0, maxPublishers: .max(10)) }
    ),
] + [("1", 1), ("10", 10), ("unlimited", Int.max)].map { name, limit in
    let maxPublishers: Subscribers.Demand = limit == .max ? .unlimited : .max(limit)
    return BenchmarkCase(
        id: "flatmap-open-inners-\(name)",
        peer: limit == .max ? "OpenCombine flatMap" : "OpenCombine buffer + flatMap(maxPublishers: .max(\(limit)))",
        ratio: .speedup(atLeast: 2),
        allocations: .counted,
        ours: { try await flowFlatMapOpenInners($0, maxConcurrent: limit) },
        peerBody: { try await openCombineFlatMapOpenInners($0, maxPublishers: maxPublishers) }
    )
}

// MARK: flatmap-latest-switch

/// `iterations` switches: each value sent into the outer subject cancels the running inner
/// (which never finishes) and subscribes a new one.
func flowFlatMapLatestSwitch(_ iterations: Int) async throws {
    let innerFlow = Flow<Int, Never>.never
    let outer = LiveSubject<Int, Never>()
    let transform = opaque { $0 &* 3 }
    let token = outer.flow
        .flatMapLatest { blackHole(transform($0)); return innerFlow }
        .subscribe(onValue: opaque { blackHole($0) }, onCompletion: { _ in })
    for value in 0..<opaque(iterations) { outer.send(value) }
    token.cancel()
}

func openCombineSwitchToLatestSwitch(_ iterations: Int) async throws {
    let inner = Empty<Int, Never>(completeImmediately: false)
    let outer = PassthroughSubject<Int, Never>()
    let transform = opaque { $0 &* 3 }
    let cancellable = outer
        .map { blackHole(transform($0)); return inner }
        .switchToLatest()
        .sink(receiveValue: opaque { blackHole($0) })
    for value in 0..<opaque(iterations) { outer.send(value) }
    cancellable.cancel()
}

// MARK: flatmap-open-inners-N

/// Outer values per subscription in the `flatmap-open-inners-N` cases.
let openInnersBatch = 20

/// `iterations` outer values, in subscriptions of `openInnersBatch`: each value's inner never
/// finishes and stays open, at most `maxConcurrent` at once, until the subscription is
/// cancelled.
func flowFlatMapOpenInners(_ iterations: Int, maxConcurrent: Int) async throws {
    let innerFlow = Flow<Int, Never>.never
    let transform = opaque { $0 &* 3 }
    let sink = opaque { blackHole($0) }
    let batch = opaque(openInnersBatch)
    for _ in 0..<max(1, iterations / openInnersBatch) {
        let token = Flow<Int, Never>.sequence(0..<batch)
            .flatMap(maxConcurrent: maxConcurrent) { blackHole(transform($0)); return innerFlow }
            .subscribe(onValue: sink, onCompletion: { _ in })
        token.cancel()
    }
}

func openCombineFlatMapOpenInners(_ iterations: Int, maxPublishers: Subscribers.Demand) async throws {
    let inner = Empty<Int, Never>(completeImmediately: false)
    let transform = opaque { $0 &* 3 }
    let sink = opaque { blackHole($0) }
    let batch = opaque(openInnersBatch)
    let map = { (value: Int) -> Empty<Int, Never> in
        blackHole(transform(value))
        return inner
    }
    for _ in 0..<max(1, iterations / openInnersBatch) {
        let cancellable: AnyCancellable
        if maxPublishers == .unlimited {
            cancellable = (0..<batch).publisher.flatMap(map).sink(receiveValue: sink)
        } else {
            cancellable = (0..<batch).publisher
                .buffer(size: .max, prefetch: .byRequest, whenFull: .dropNewest)
                .flatMap(maxPublishers: maxPublishers, map)
                .sink(receiveValue: sink)
        }
        cancellable.cancel()
    }
}

// MARK: flatmap-latest-switch-live, flatmap-open-inners-10-live

/// `iterations` switches, each to a fresh subject's flow that stays open until replaced.
func flowFlatMapLatestSwitchLive(_ iterations: Int) async throws {
    let outer = LiveSubject<Int, Never>()
    let transform = opaque { $0 &* 3 }
    let token = outer.flow
        .flatMapLatest { blackHole(transform($0)); return LiveSubject<Int, Never>().flow }
        .subscribe(onValue: opaque { blackHole($0) }, onCompletion: { _ in })
    for value in 0..<opaque(iterations) { outer.send(value) }
    token.cancel()
}

func openCombineSwitchToLatestSwitchLive(_ iterations: Int) async throws {
    let outer = PassthroughSubject<Int, Never>()
    let transform = opaque { $0 &* 3 }
    let cancellable = outer
        .map { blackHole(transform($0)); return PassthroughSubject<Int, Never>() }
        .switchToLatest()
        .sink(receiveValue: opaque { blackHole($0) })
    for value in 0..<opaque(iterations) { outer.send(value) }
    cancellable.cancel()
}

/// `flowFlatMapOpenInners` with a fresh subject's flow as each inner.
func flowFlatMapOpenLiveInners(_ iterations: Int, maxConcurrent: Int) async throws {
    let transform = opaque { $0 &* 3 }
    let sink = opaque { blackHole($0) }
    let batch = opaque(openInnersBatch)
    for _ in 0..<max(1, iterations / openInnersBatch) {
        let token = Flow<Int, Never>.sequence(0..<batch)
            .flatMap(maxConcurrent: maxConcurrent) { blackHole(transform($0)); return LiveSubject<Int, Never>().flow }
            .subscribe(onValue: sink, onCompletion: { _ in })
        token.cancel()
    }
}

func openCombineFlatMapOpenLiveInners(_ iterations: Int, maxPublishers: Subscribers.Demand) async throws {
    let transform = opaque { $0 &* 3 }
    let sink = opaque { blackHole($0) }
    let batch = opaque(openInnersBatch)
    let map = { (value: Int) -> PassthroughSubject<Int, Never> in
        blackHole(transform(value))
        return PassthroughSubject<Int, Never>()
    }
    for _ in 0..<max(1, iterations / openInnersBatch) {
        let cancellable = (0..<batch).publisher
            .buffer(size: .max, prefetch: .byRequest, whenFull: .dropNewest)
            .flatMap(maxPublishers: maxPublishers, map)
            .sink(receiveValue: sink)
        cancellable.cancel()
    }
}
