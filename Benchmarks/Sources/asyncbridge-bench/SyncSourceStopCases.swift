import AsyncBridge
import OpenCombine

/// What it costs to stop a synchronous source after its first value (issue 19): per
/// subscription, `Flow.sequence(0..<N)` is subscribed, delivers its first value, and is told
/// to stop, through three routes. The claim: a subscription costs the same at N = 1,000 and
/// at N = 1,000,000, because the source stops at the first value instead of running through
/// the N - 1 values nobody wants. Compare the `-1000` row of a route with its `-1000000` row.
///
/// - `sync-source-stop-prefix-N`: `prefix(1)`; the peer is OpenCombine's `prefix(1)` on
///   `(0..<N).publisher` (which, as OpenCombine implements it, finishes and cancels at the
///   second value, not the first: one value more, still independent of N).
/// - `sync-source-stop-share-first-N`: `share().first()`, the shared flow made per
///   subscription (so every subscription connects, and both sides do the same work); the peer
///   is OpenCombine's `share().first()` made the same way.
/// - `sync-source-stop-on-start-N`: an adapter's handler: `subscribe(onStart:_:)` hands the
///   token to a box before the flow runs, and the handler cancels it at the first value, inside
///   the synchronous emission. The peer is the Combine spelling of an adapter: a `Subscriber`
///   that keeps the `Subscription` it receives in `receive(subscription:)`, requests
///   `.unlimited`, and cancels it in `receive(_:)` (a `sink`'s `AnyCancellable` only exists
///   once `sink` has returned, after a synchronous source has run to its end).
let syncSourceStopCounts = [1_000, 1_000_000]

/// Route by route, each at both counts, so that the two rows to compare are next to each other.
let syncSourceStopCases: [BenchmarkCase] =
    syncSourceStopCounts.map { count in
        BenchmarkCase(
            id: "sync-source-stop-prefix-\(count)",
            peer: "OpenCombine prefix(1)",
            ratio: .speedup(atLeast: nil),
            allocations: .counted,
            ours: { try await flowStopByPrefix($0, count: count) },
            peerBody: { try await openCombineStopByPrefix($0, count: count) }
        )
    } + syncSourceStopCounts.map { count in
        BenchmarkCase(
            id: "sync-source-stop-share-first-\(count)",
            peer: "OpenCombine share().first()",
            ratio: .speedup(atLeast: nil),
            allocations: .counted,
            ours: { try await flowStopByShareFirst($0, count: count) },
            peerBody: { try await openCombineStopByShareFirst($0, count: count) }
        )
    } + syncSourceStopCounts.map { count in
        BenchmarkCase(
            id: "sync-source-stop-on-start-\(count)",
            peer: "OpenCombine Subscriber cancelling in receive(_:)",
            ratio: .speedup(atLeast: nil),
            allocations: .counted,
            ours: { try await flowStopByOnStart($0, count: count) },
            peerBody: { try await openCombineStopBySubscriber($0, count: count) }
        )
    }

// MARK: prefix(1)

/// `iterations` subscriptions to `Flow.sequence(0..<count).prefix(1)`.
func flowStopByPrefix(_ iterations: Int, count: Int) async throws {
    let flow = Flow<Int, Never>.sequence(0..<opaque(count)).prefix(1)
    let sink = opaque { blackHole($0) }
    for _ in 0..<opaque(iterations) {
        let token = flow.subscribe(onValue: sink, onCompletion: { _ in })
        withExtendedLifetime(token) {}
    }
}

func openCombineStopByPrefix(_ iterations: Int, count: Int) async throws {
    let publisher = (0..<opaque(count)).publisher.prefix(1)
    let sink = opaque { blackHole($0) }
    for _ in 0..<opaque(iterations) {
        let cancellable = publisher.sink(receiveValue: sink)
        withExtendedLifetime(cancellable) {}
    }
}

// MARK: share().first()

/// `iterations` subscriptions, each to a new `share()` of the sequence, through `first()`.
func flowStopByShareFirst(_ iterations: Int, count: Int) async throws {
    let source = Flow<Int, Never>.sequence(0..<opaque(count))
    let sink = opaque { blackHole($0) }
    for _ in 0..<opaque(iterations) {
        let token = source.share().first().subscribe(onValue: sink, onCompletion: { _ in })
        withExtendedLifetime(token) {}
    }
}

func openCombineStopByShareFirst(_ iterations: Int, count: Int) async throws {
    let source = (0..<opaque(count)).publisher
    let sink = opaque { blackHole($0) }
    for _ in 0..<opaque(iterations) {
        let cancellable = source.share().first().sink(receiveValue: sink)
        withExtendedLifetime(cancellable) {}
    }
}

// MARK: subscribe(onStart:_:)

/// An adapter's hold on its subscription: the token, handed over before the flow runs.
final class TokenBox: @unchecked Sendable {
    var token: CancellationToken?
}

/// `iterations` subscriptions whose handler cancels its own token at the first value.
func flowStopByOnStart(_ iterations: Int, count: Int) async throws {
    let flow = Flow<Int, Never>.sequence(0..<opaque(count))
    let sink = opaque { blackHole($0) }
    for _ in 0..<opaque(iterations) {
        let box = TokenBox()
        let token = flow.subscribe(onStart: { box.token = $0 }) { event in
            guard case .value(let value) = event else { return }
            sink(value)
            box.token?.cancel()
            box.token = nil
        }
        withExtendedLifetime(token) {}
    }
}

/// The Combine adapter: keeps its `Subscription` and cancels it at the first value.
final class CancellingAtFirstValue: Subscriber {
    typealias Input = Int
    typealias Failure = Never

    let sink: @Sendable (Int) -> Void
    var subscription: (any Subscription)?

    init(_ sink: @escaping @Sendable (Int) -> Void) { self.sink = sink }

    func receive(subscription: any Subscription) {
        self.subscription = subscription
        subscription.request(.unlimited)
    }

    func receive(_ input: Int) -> Subscribers.Demand {
        sink(input)
        subscription?.cancel()
        subscription = nil
        return .none
    }

    func receive(completion: Subscribers.Completion<Never>) {
        subscription = nil
    }
}

func openCombineStopBySubscriber(_ iterations: Int, count: Int) async throws {
    let publisher = (0..<opaque(count)).publisher
    let sink = opaque { blackHole($0) }
    for _ in 0..<opaque(iterations) {
        publisher.subscribe(CancellingAtFirstValue(sink))
    }
}
