import AsyncBridge
import OpenCombine

/// Operators of the everyday set against OpenCombine's, each side doing the same work: three
/// subjects zipped, and values batched by count; per value (`…`) and per subscription
/// (`…-lifecycle`: subscribe, the sends that make one output, cancel). `combine-latest-3` has no
/// peer (see its entry).
let operatorCases: [BenchmarkCase] = [
    BenchmarkCase(
        id: "zip-3",
        peer: "OpenCombine Zip3",
        ratio: .speedup(atLeast: nil),
        allocations: .counted,
        ours: zipThree,
        peerBody: openCombineZipThree
    ),
    BenchmarkCase(
        id: "zip-3-lifecycle",
        peer: "OpenCombine Zip3",
        ratio: .speedup(atLeast: nil),
        allocations: .counted,
        ours: zipThreeLifecycle,
        peerBody: openCombineZipThreeLifecycle
    ),
    // OpenCombine 0.14.0 has no CombineLatest (nor Merge), and no other package of the mirror
    // combines pushed values: this row is a reference, not a comparison.
    BenchmarkCase(
        id: "combine-latest-3",
        peer: "our combineLatest of two (reference, no peer)",
        ratio: .overFloor(atMost: nil),
        allocations: .counted,
        ours: combineLatestThree,
        peerBody: combineLatestTwo
    ),
    BenchmarkCase(
        id: "collect-count",
        peer: "OpenCombine collect(_:)",
        ratio: .speedup(atLeast: nil),
        allocations: .counted,
        ours: collectByCount,
        peerBody: openCombineCollectByCount
    ),
    BenchmarkCase(
        id: "collect-count-lifecycle",
        peer: "OpenCombine collect(_:)",
        ratio: .speedup(atLeast: nil),
        allocations: .counted,
        ours: collectByCountLifecycle,
        peerBody: openCombineCollectByCountLifecycle
    ),
]

/// `opaque(_:)` for a handler of any type: the optimiser cannot see through it.
@inline(never) @_optimize(none)
func opaqueSink<Value>(_ sink: @escaping @Sendable (Value) -> Void) -> @Sendable (Value) -> Void { sink }

/// The size of each `collect` batch.
let batchSize = 10

// MARK: zip-3 and combine-latest-3

/// `iterations` sends into three subjects zipped: a tuple per three sends.
func zipThree(_ iterations: Int) async throws {
    let subjects = (0..<3).map { _ in LiveSubject<Int, Never>() }
    let token = Flow.zip(subjects[0].flow, subjects[1].flow, subjects[2].flow)
        .subscribe(onValue: opaqueSink { (value: (Int, Int, Int)) in blackHole(value.0 &+ value.1 &+ value.2) }, onCompletion: { _ in })
    for value in 0..<opaque(iterations) { subjects[value % 3].send(value) }
    token.cancel()
}

func openCombineZipThree(_ iterations: Int) async throws {
    let subjects = (0..<3).map { _ in PassthroughSubject<Int, Never>() }
    let cancellable = subjects[0].zip(subjects[1], subjects[2])
        .sink(receiveValue: opaqueSink { (value: (Int, Int, Int)) in blackHole(value.0 &+ value.1 &+ value.2) })
    for value in 0..<opaque(iterations) { subjects[value % 3].send(value) }
    cancellable.cancel()
}

/// `iterations` subscriptions to `zip` of three subjects: subscribe, one value from each (one
/// tuple), cancel.
func zipThreeLifecycle(_ iterations: Int) async throws {
    let (a, b, c) = (LiveSubject<Int, Never>(), LiveSubject<Int, Never>(), LiveSubject<Int, Never>())
    let zipped = Flow.zip(a.flow, b.flow, c.flow)
    let sink = opaqueSink { (value: (Int, Int, Int)) in blackHole(value.0 &+ value.1 &+ value.2) }
    for value in 0..<opaque(iterations) {
        let token = zipped.subscribe(onValue: sink, onCompletion: { _ in })
        a.send(value); b.send(value); c.send(value)
        token.cancel()
    }
}

func openCombineZipThreeLifecycle(_ iterations: Int) async throws {
    let (a, b, c) = (PassthroughSubject<Int, Never>(), PassthroughSubject<Int, Never>(), PassthroughSubject<Int, Never>())
    let zipped = a.zip(b, c)
    let sink = opaqueSink { (value: (Int, Int, Int)) in blackHole(value.0 &+ value.1 &+ value.2) }
    for value in 0..<opaque(iterations) {
        let cancellable = zipped.sink(receiveValue: sink)
        a.send(value); b.send(value); c.send(value)
        cancellable.cancel()
    }
}

/// `iterations` sends into three subjects combined: a tuple per send, once all three have sent.
func combineLatestThree(_ iterations: Int) async throws {
    let subjects = (0..<3).map { _ in LiveSubject<Int, Never>() }
    let token = Flow.combineLatest(subjects[0].flow, subjects[1].flow, subjects[2].flow)
        .subscribe(onValue: opaqueSink { (value: (Int, Int, Int)) in blackHole(value.0 &+ value.1 &+ value.2) }, onCompletion: { _ in })
    for value in 0..<opaque(iterations) { subjects[value % 3].send(value) }
    token.cancel()
}

/// The same sends into two subjects combined (the reference for `combine-latest-3`).
func combineLatestTwo(_ iterations: Int) async throws {
    let subjects = (0..<2).map { _ in LiveSubject<Int, Never>() }
    let token = subjects[0].flow.combineLatest(subjects[1].flow)
        .subscribe(onValue: opaqueSink { (value: (Int, Int)) in blackHole(value.0 &+ value.1) }, onCompletion: { _ in })
    for value in 0..<opaque(iterations) { subjects[value % 2].send(value) }
    token.cancel()
}

// MARK: collect-count

/// `iterations` sends into a subject batched by `collect(10)` (RxSwift's `buffer` by count).
func collectByCount(_ iterations: Int) async throws {
    let subject = LiveSubject<Int, Never>()
    let token = subject.flow.collect(opaque(batchSize))
        .subscribe(onValue: opaqueSink { (batch: [Int]) in blackHole(batch.count) }, onCompletion: { _ in })
    for value in 0..<opaque(iterations) { subject.send(value) }
    token.cancel()
}

func openCombineCollectByCount(_ iterations: Int) async throws {
    let subject = PassthroughSubject<Int, Never>()
    let cancellable = subject.collect(opaque(batchSize))
        .sink(receiveValue: opaqueSink { (batch: [Int]) in blackHole(batch.count) })
    for value in 0..<opaque(iterations) { subject.send(value) }
    cancellable.cancel()
}

/// `iterations` subscriptions batched by `collect(10)`: subscribe, ten sends (one batch),
/// cancel.
func collectByCountLifecycle(_ iterations: Int) async throws {
    let subject = LiveSubject<Int, Never>()
    let batches = subject.flow.collect(opaque(batchSize))
    let sink = opaqueSink { (batch: [Int]) in blackHole(batch.count) }
    for value in 0..<opaque(iterations) {
        let token = batches.subscribe(onValue: sink, onCompletion: { _ in })
        for _ in 0..<batchSize { subject.send(value) }
        token.cancel()
    }
}

func openCombineCollectByCountLifecycle(_ iterations: Int) async throws {
    let subject = PassthroughSubject<Int, Never>()
    let batches = subject.collect(opaque(batchSize))
    let sink = opaqueSink { (batch: [Int]) in blackHole(batch.count) }
    for value in 0..<opaque(iterations) {
        let cancellable = batches.sink(receiveValue: sink)
        for _ in 0..<batchSize { subject.send(value) }
        cancellable.cancel()
    }
}
