import AsyncBridge
import Dispatch
import OpenCombine

/// Every case, in the order they run. A new case is one more entry here.
let benchmarkCases: [BenchmarkCase] = [
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
        ratio: .overFloor(atMost: nil),
        allocations: .counted,
        ours: callbackToAsyncLater,
        peerBody: callbackToAsyncLaterFloor
    ),
    BenchmarkCase(
        id: "future-await",
        peer: "OpenCombine Future+sink",
        ratio: .speedup(atLeast: 10),
        allocations: .counted,
        ours: futureAwait,
        peerBody: openCombineFutureSink
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
        let value: Int = try await withCompletion { (completion: @escaping @Sendable (Result<Int, Never>) -> Void) -> CancelAction in
            completeAtOnce(input, completion)
            return {}
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
        let value: Int = try await withCompletion { (completion: @escaping @Sendable (Result<Int, Never>) -> Void) -> CancelAction in
            completeLater(input, completion)
            return {}
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

// MARK: future-await

/// A fresh `Future` per call, awaited once.
func futureAwait(_ iterations: Int) async throws {
    for i in 0..<iterations {
        let input = opaque(i)
        let future = AsyncBridge.Future<Int, Never> { completion in completion(.success(input)) }
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
