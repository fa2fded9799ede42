@_spi(AsyncBridgeInternals) import AsyncBridge
import Dispatch
import OpenCombine

/// Every case, in the order they run: the one-shot and Flow cases below, then the concurrency
/// spoke's (`ConcurrencyCases.swift`), the coordination spoke's (`CoordinationCases.swift`) and
/// delivery to the main queue (`DeliveryCases.swift`).
let benchmarkCases: [BenchmarkCase] = oneShotAndFlowCases + concurrencyCases + coordinationCases + deliveryCases + combineBridgeCases + operatorCases
    + innerLifecycleCases + subscriberScalingCases + syncSourceStopCases + observationCases

/// The one-shot bridges' and Flow's cases. A new case is one more entry here.
let oneShotAndFlowCases: [BenchmarkCase] = [
    BenchmarkCase(
        id: "callback-to-async",
        peer: "withCheckedThrowingContinuation",
        ratio: .overFloor(atMost: 1.5),
        allocations: .atMost(2),
        ours: callbackToAsync,
        peerBody: callbackToAsyncFloor
    ),
    BenchmarkCase(
        id: "callback-to-async-later",
        peer: "withCheckedThrowingContinuation",
        ratio: .overFloor(atMost: 1),
        allocations: .counted,
        ours: callbackToAsyncLater,
        peerBody: callbackToAsyncLaterFloor
    ),
    BenchmarkCase(
        id: "callback-to-async-later",
        peer: "cancellable checked continuation",
        ratio: .overFloor(atMost: nil),
        allocations: .counted,
        ours: callbackToAsyncLater,
        peerBody: callbackToAsyncLaterCancellable
    ),
    BenchmarkCase(
        id: "callback-to-async-later",
        peer: "checked continuation in an empty cancellation handler",
        ratio: .overFloor(atMost: nil),
        allocations: .counted,
        ours: callbackToAsyncLater,
        peerBody: callbackToAsyncLaterHandlerOnly
    ),
    BenchmarkCase(
        id: "future-await",
        peer: "OpenCombine Future+sink",
        ratio: .speedup(atLeast: 10),
        allocations: .counted,
        ours: futureAwait,
        peerBody: openCombineFutureSink
    ),
    BenchmarkCase(
        id: "map-filter",
        peer: "OpenCombine sequence publisher",
        ratio: .speedup(atLeast: 10),
        allocations: .counted,
        ours: flowMapFilter,
        peerBody: openCombineMapFilter
    ),
    BenchmarkCase(
        id: "map-filter",
        peer: "plain closure loop",
        ratio: .speedup(atLeast: nil),
        allocations: .counted,
        ours: flowMapFilter,
        peerBody: closureLoopMapFilter
    ),
    BenchmarkCase(
        id: "subject-map-filter",
        peer: "OpenCombine PassthroughSubject",
        ratio: .speedup(atLeast: 3),
        allocations: .counted,
        ours: subjectMapFilter,
        peerBody: openCombineSubjectMapFilter
    ),
    BenchmarkCase(
        id: "flatmap-just",
        peer: "OpenCombine flatMap { Just }",
        ratio: .speedup(atLeast: 5),
        allocations: .counted,
        ours: flowFlatMapJust,
        peerBody: openCombineFlatMapJust
    ),
    BenchmarkCase(
        id: "flatmap-latest",
        peer: "OpenCombine map + switchToLatest",
        ratio: .speedup(atLeast: 3),
        allocations: .counted,
        ours: flowFlatMapLatest,
        peerBody: openCombineSwitchToLatest
    ),
    BenchmarkCase(
        id: "share-fanout",
        peer: "OpenCombine share()",
        ratio: .speedup(atLeast: nil),
        allocations: .counted,
        ours: shareFanout,
        peerBody: openCombineShareFanout
    ),
]

// MARK: callback-to-async

/// A completion-block API that calls its completion at once, on the calling thread. The
/// optimiser sees neither into it nor through it.
///
/// It keeps the block while it runs, as a real API does until it completes. Without that, the
/// optimiser's escape analysis, which `@_optimize(none)` does not stop, sees that the block
/// does not outlive the call and allocates its context on the stack, which no real API allows.
@inline(never) @_optimize(none)
func completeAtOnce(_ value: Int, _ completion: @escaping @Sendable (Result<Int, Never>) -> Void) {
    heldCompletion = completion
    heldCompletion?(.success(value))
    heldCompletion = nil
}

/// The block `completeAtOnce` is running. The cases run one at a time; unchecked, so that
/// holding the block costs a store and a release, not a dynamic exclusivity check.
@exclusivity(unchecked) nonisolated(unsafe) private var heldCompletion: (@Sendable (Result<Int, Never>) -> Void)?

/// `withCompletion`, cancellable overload: the closure hands back a `CancelAction`.
func callbackToAsync(_ iterations: Int) async throws {
    for i in 0..<iterations {
        let input = opaque(i)
        let value: Int = try await withCompletion { (completion: @escaping @Sendable (Result<Int, Never>) -> Void, onCancel) in
            completeAtOnce(input, completion)
            onCancel {}
        }
        blackHole(value)
    }
}

/// The floor: a hand-written checked continuation, with none of the bridge's guarantees.
func callbackToAsyncFloor(_ iterations: Int) async throws {
    for i in 0..<iterations {
        let input = opaque(i)
        let value = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int, any Error>) in
            completeAtOnce(input) { continuation.resume(with: $0) }
        }
        blackHole(value)
    }
}

// MARK: callback-to-async-later

/// A completion-block API that completes on another thread, usually after the caller has
/// suspended: the path where the bridge installs its cancellation handler and waits. The
/// thread hop dominates the time; the case guards that path (compare instruction counts).
@inline(never) @_optimize(none)
func completeLater(_ value: Int, _ completion: @escaping @Sendable (Result<Int, Never>) -> Void) {
    DispatchQueue.global().async { completion(.success(value)) }
}

/// `withCompletion`, cancellable overload, around `completeLater`.
func callbackToAsyncLater(_ iterations: Int) async throws {
    for i in 0..<iterations {
        let input = opaque(i)
        let value: Int = try await withCompletion { (completion: @escaping @Sendable (Result<Int, Never>) -> Void, onCancel) in
            completeLater(input, completion)
            onCancel {}
        }
        blackHole(value)
    }
}

/// The floor for `completeLater`: a hand-written checked continuation.
func callbackToAsyncLaterFloor(_ iterations: Int) async throws {
    for i in 0..<iterations {
        let input = opaque(i)
        let value = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int, any Error>) in
            completeLater(input) { continuation.resume(with: $0) }
        }
        blackHole(value)
    }
}

/// What a hand-written bridge needs to do what `withCompletion`'s cancellable overload does:
/// leave when the task is cancelled and run the API's cancel action. The continuation sits in
/// a lock, so that the completion and the cancellation handler resume it once between them.
func callbackToAsyncLaterCancellable(_ iterations: Int) async throws {
    for i in 0..<iterations {
        let input = opaque(i)
        let call = SharedLock(HandWrittenCall.starting)
        let cancelAction: @Sendable () -> Void = {}
        let value = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int, any Error>) in
                let cancelled = call.withLock { state -> Bool in
                    guard case .starting = state else { return true }
                    state = .waiting(continuation)
                    return false
                }
                if cancelled { return continuation.resume(throwing: CancellationError()) }
                completeLater(input) { result in call.withLock { $0.take() }?.resume(with: result) }
            }
        } onCancel: {
            guard let continuation = call.withLock({ $0.take() }) else { return }
            cancelAction()
            continuation.resume(throwing: CancellationError())
        }
        blackHole(value)
    }
}

/// Not a bridge: the floor inside `withTaskCancellationHandler` with a handler that does
/// nothing, so that the row shows what the runtime's cancellation handler alone adds to it, a
/// cost every bridge that leaves a cancelled task pays.
func callbackToAsyncLaterHandlerOnly(_ iterations: Int) async throws {
    for i in 0..<iterations {
        let input = opaque(i)
        let value = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int, any Error>) in
                completeLater(input) { continuation.resume(with: $0) }
            }
        } onCancel: {}
        blackHole(value)
    }
}

/// The hand-written bridge's state: the continuation, until the completion or the cancellation
/// takes it.
enum HandWrittenCall: Sendable {
    case starting
    case waiting(CheckedContinuation<Int, any Error>)
    case over

    /// The continuation to resume, once: `nil` after the first call (and before the wait,
    /// when a cancellation marks the call over).
    mutating func take() -> CheckedContinuation<Int, any Error>? {
        defer { self = .over }
        guard case .waiting(let continuation) = self else { return nil }
        return continuation
    }
}

// MARK: future-await

/// A fresh `SharedFuture` per call, awaited once.
func futureAwait(_ iterations: Int) async throws {
    for i in 0..<iterations {
        let input = opaque(i)
        let future = AsyncBridge.SharedFuture<Int, Never> { completion in completion(.success(input)) }
        blackHole(try await future.value)
    }
}

/// A fresh OpenCombine `Future` per call, consumed with `sink`.
func openCombineFutureSink(_ iterations: Int) async throws {
    for i in 0..<iterations {
        let input = opaque(i)
        let cancellable = OpenCombine.Future<Int, Never> { promise in promise(.success(input)) }
            .sink { blackHole($0) }
        withExtendedLifetime(cancellable) {}
    }
}

// MARK: map-filter

/// The user's closures, kept opaque so that no side can fold the chain into a loop.
@inline(never) @_optimize(none)
func opaque(_ transform: @escaping @Sendable (Int) -> Int) -> @Sendable (Int) -> Int { transform }

@inline(never) @_optimize(none)
func opaque(_ predicate: @escaping @Sendable (Int) -> Bool) -> @Sendable (Int) -> Bool { predicate }

@inline(never) @_optimize(none)
func opaque(_ sink: @escaping @Sendable (Int) -> Void) -> @Sendable (Int) -> Void { sink }

/// `iterations` values through `map → filter → subscribe`, from a synchronous source.
func flowMapFilter(_ iterations: Int) async throws {
    let transform = opaque { $0 &* 3 }
    let isIncluded = opaque { $0 & 1 == 0 }
    let sink = opaque { blackHole($0) }
    _ = Flow<Int, Never>.sequence(0..<opaque(iterations))
        .map(transform)
        .filter(isIncluded)
        .subscribe(onValue: sink, onCompletion: { _ in })
}

func openCombineMapFilter(_ iterations: Int) async throws {
    let transform = opaque { $0 &* 3 }
    let isIncluded = opaque { $0 & 1 == 0 }
    let sink = opaque { blackHole($0) }
    let cancellable = (0..<opaque(iterations)).publisher
        .map(transform)
        .filter(isIncluded)
        .sink(receiveValue: sink)
    withExtendedLifetime(cancellable) {}
}

/// The floor: the same closures called in a loop.
func closureLoopMapFilter(_ iterations: Int) async throws {
    let transform = opaque { $0 &* 3 }
    let isIncluded = opaque { $0 & 1 == 0 }
    let sink = opaque { blackHole($0) }
    for value in 0..<opaque(iterations) {
        let mapped = transform(value)
        if isIncluded(mapped) { sink(mapped) }
    }
}

// MARK: subject-map-filter

/// `iterations` sends into a subject, through `map → filter → subscribe`.
func subjectMapFilter(_ iterations: Int) async throws {
    let subject = LiveSubject<Int, Never>()
    let token = subject.flow
        .map(opaque { $0 &* 3 })
        .filter(opaque { $0 & 1 == 0 })
        .subscribe(onValue: opaque { blackHole($0) }, onCompletion: { _ in })
    for value in 0..<opaque(iterations) { subject.send(value) }
    token.cancel()
}

func openCombineSubjectMapFilter(_ iterations: Int) async throws {
    let subject = PassthroughSubject<Int, Never>()
    let cancellable = subject
        .map(opaque { $0 &* 3 })
        .filter(opaque { $0 & 1 == 0 })
        .sink(receiveValue: opaque { blackHole($0) })
    for value in 0..<opaque(iterations) { subject.send(value) }
    cancellable.cancel()
}

// MARK: share-fanout

let fanoutSubscribers = 100

/// `iterations` deliveries: sends into `share()` fanned out to 100 subscribers.
func shareFanout(_ iterations: Int) async throws {
    let subject = LiveSubject<Int, Never>()
    let shared = subject.flow.share()
    let sink = opaque { blackHole($0) }
    let tokens = (0..<fanoutSubscribers).map { _ in shared.subscribe(onValue: sink, onCompletion: { _ in }) }
    for value in 0..<opaque(iterations / fanoutSubscribers) { subject.send(value) }
    for token in tokens { token.cancel() }
}

/// The same deliveries through OpenCombine's `share()` (a multicast through a subject,
/// connected at the first subscriber), with the same 100 `sink`s.
func openCombineShareFanout(_ iterations: Int) async throws {
    let subject = OpenCombine.PassthroughSubject<Int, Never>()
    let shared = subject.share()
    let sink = opaque { blackHole($0) }
    let cancellables = (0..<fanoutSubscribers).map { _ in shared.sink(receiveValue: sink) }
    for value in 0..<opaque(iterations / fanoutSubscribers) { subject.send(value) }
    for cancellable in cancellables { cancellable.cancel() }
}

// MARK: flatmap-just, flatmap-latest

/// `iterations` outer values, each mapped to a one-value inner flow and merged.
func flowFlatMapJust(_ iterations: Int) async throws {
    let transform = opaque { $0 &* 3 }
    _ = Flow<Int, Never>.sequence(0..<opaque(iterations))
        .flatMap { Flow.just(transform($0)) }
        .subscribe(onValue: opaque { blackHole($0) }, onCompletion: { _ in })
}

func openCombineFlatMapJust(_ iterations: Int) async throws {
    let transform = opaque { $0 &* 3 }
    let cancellable = (0..<opaque(iterations)).publisher
        .flatMap { Just(transform($0)) }
        .sink(receiveValue: opaque { blackHole($0) })
    withExtendedLifetime(cancellable) {}
}

/// `iterations` switches: each outer value sent into a subject replaces the inner flow.
func flowFlatMapLatest(_ iterations: Int) async throws {
    let transform = opaque { $0 &* 3 }
    let outer = LiveSubject<Int, Never>()
    let token = outer.flow
        .flatMapLatest { Flow.just(transform($0)) }
        .subscribe(onValue: opaque { blackHole($0) }, onCompletion: { _ in })
    for value in 0..<opaque(iterations) { outer.send(value) }
    token.cancel()
}

func openCombineSwitchToLatest(_ iterations: Int) async throws {
    let transform = opaque { $0 &* 3 }
    let outer = PassthroughSubject<Int, Never>()
    let cancellable = outer
        .map { Just(transform($0)) }
        .switchToLatest()
        .sink(receiveValue: opaque { blackHole($0) })
    for value in 0..<opaque(iterations) { outer.send(value) }
    cancellable.cancel()
}
