@_spi(AsyncBridgeInternals) import AsyncBridge
import Dispatch
import Testing

/// An outer flow the test drives by hand: `send`, `finish` and `fail` reach the current
/// subscription; counts subscriptions and cancellations.
final class ManualOuterFlow<Element: Sendable, Failure: Error>: Sendable {
    private struct State {
        var emitter: FlowEmitter<Element, Failure>?
        var subscriptions = 0
        var cancels = 0
    }

    private let state = SharedLock(State())

    var flow: Flow<Element, Failure> {
        Flow.create { emitter in
            self.state.withLock { state in
                state.emitter = emitter
                state.subscriptions += 1
            }
            emitter.onCancel { self.state.withLock { $0.cancels += 1 } }
        }
    }

    var subscriptions: Int { state.withLock { $0.subscriptions } }
    var cancels: Int { state.withLock { $0.cancels } }

    func send(_ value: Element) { state.withLock { $0.emitter }?.send(value) }
    func finish() { state.withLock { $0.emitter }?.finish() }
    func fail(_ error: Failure) { state.withLock { $0.emitter }?.fail(error) }
}

/// Inner flows the test drives by hand, one per key. Records which keys were subscribed, in
/// order, how often each was cancelled, and how many run at once (subscribed, and not yet
/// finished, failed or cancelled).
final class ManualInnerFlows<Element: Sendable, Failure: Error>: Sendable {
    private struct Inner {
        var emitter: FlowEmitter<Element, Failure>
        var ended = false
        var cancels = 0
    }

    private struct State {
        var inners: [String: Inner] = [:]
        var subscribed: [String] = []
        var active = 0
        var maxActive = 0
    }

    private let state = SharedLock(State())

    /// The inner flow for `key`: each subscription replaces the previous one of that key.
    func flow(_ key: String) -> Flow<Element, Failure> {
        Flow.create { emitter in
            self.state.withLock { state in
                state.inners[key] = Inner(emitter: emitter)
                state.subscribed.append(key)
                state.active += 1
                state.maxActive = max(state.maxActive, state.active)
            }
            emitter.onCancel {
                self.state.withLock { state in
                    state.inners[key]?.cancels += 1
                    if state.inners[key]?.ended == false {
                        state.inners[key]?.ended = true
                        state.active -= 1
                    }
                }
            }
        }
    }

    /// Keys in the order they were subscribed.
    var subscribed: [String] { state.withLock { $0.subscribed } }
    /// Keys subscribed and not yet ended, in subscription order.
    var running: [String] { state.withLock { state in state.subscribed.filter { state.inners[$0]?.ended == false } } }
    var active: Int { state.withLock { $0.active } }
    var maxActive: Int { state.withLock { $0.maxActive } }
    func cancels(_ key: String) -> Int { state.withLock { $0.inners[key]?.cancels ?? 0 } }

    func send(_ key: String, _ value: Element) {
        state.withLock { $0.inners[key]?.emitter }?.send(value)
    }

    /// Marks `key` ended, then finishes it (which may start the next inner at once).
    func finish(_ key: String) {
        end(key)?.finish()
    }

    func fail(_ key: String, _ error: Failure) {
        end(key)?.fail(error)
    }

    private func end(_ key: String) -> FlowEmitter<Element, Failure>? {
        state.withLock { state in
            guard let inner = state.inners[key] else { return nil }
            if !inner.ended {
                state.inners[key]?.ended = true
                state.active -= 1
            }
            return inner.emitter
        }
    }
}

/// Every member of the flatMap family (and their weak-capture forms, with an owner that stays
/// alive), for the tests of what they share.
enum FlatMapVariant: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case flatMap, flatMapMaxConcurrent2, concatMap, flatMapLatest, flatMapFirst, flatMapWithIndex
    case flatMapWeak, flatMapLatestWeak, flatMapFirstWeak, flatMapWithIndexWeak

    var testDescription: String { rawValue }

    /// Whether a second outer value, sent while the first inner runs, starts an inner of its own
    /// at once.
    var startsEveryValueAtOnce: Bool {
        switch self {
        case .flatMap, .flatMapMaxConcurrent2, .flatMapLatest, .flatMapWithIndex, .flatMapWeak, .flatMapLatestWeak,
            .flatMapWithIndexWeak:
            true
        case .concatMap, .flatMapFirst, .flatMapFirstWeak:
            false
        }
    }

    func apply<Element, NewElement, Failure>(
        _ outer: Flow<Element, Failure>,
        _ transform: @escaping @Sendable (Element) -> Flow<NewElement, Failure>
    ) -> Flow<NewElement, Failure> {
        let owner = FlatMapOwner.shared
        switch self {
        case .flatMap: return outer.flatMap(transform)
        case .flatMapMaxConcurrent2: return outer.flatMap(maxConcurrent: 2, transform)
        case .concatMap: return outer.concatMap(transform)
        case .flatMapLatest: return outer.flatMapLatest(transform)
        case .flatMapFirst: return outer.flatMapFirst(transform)
        case .flatMapWithIndex: return outer.flatMapWithIndex { value, _ in transform(value) }
        case .flatMapWeak: return outer.flatMap(weak: owner) { _, value in transform(value) }
        case .flatMapLatestWeak: return outer.flatMapLatest(weak: owner) { _, value in transform(value) }
        case .flatMapFirstWeak: return outer.flatMapFirst(weak: owner) { _, value in transform(value) }
        case .flatMapWithIndexWeak: return outer.flatMapWithIndex(weak: owner) { _, value, _ in transform(value) }
        }
    }
}

/// An owner for weak-capture selectors.
final class FlatMapOwner: Sendable {
    static let shared = FlatMapOwner(name: "shared")
    let name: String
    init(name: String) { self.name = name }
}

/// Holds chosen events on their way from an inner's source to the operator (past the source's
/// emitter, which a cancellation closes, and not yet at the operator) until released: how a
/// test puts an event in flight at a switch or a cancellation.
final class InFlightEvents: Sendable {
    private let entered = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)
    private let senders = DispatchGroup()

    /// `inner`, holding each value for which `isHeld` is true, and its completion if
    /// `holdsCompletion`.
    func holding<Failure: Error>(
        _ inner: Flow<String, Failure>,
        valuesWhere isHeld: @escaping @Sendable (String) -> Bool = { _ in false },
        completion holdsCompletion: Bool = false
    ) -> Flow<String, Failure> {
        inner.handleEvents(
            onValue: { if isHeld($0) { self.hold() } },
            onCompletion: { _ in if holdsCompletion { self.hold() } }
        )
    }

    /// Runs `send` on a thread of its own, and returns once the event it sends is held.
    func send(_ send: @escaping @Sendable () -> Void) {
        DispatchQueue(label: "in flight").async(group: senders, execute: send)
        entered.wait()
    }

    /// Lets `count` held events go on, and waits until their senders have returned.
    func release(_ count: Int = 1) {
        for _ in 0..<count { released.signal() }
        senders.wait()
    }

    private func hold() {
        entered.signal()
        released.wait()
    }
}
