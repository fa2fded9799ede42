@_spi(AsyncBridgeInternals) import AsyncBridge
import Dispatch
import Foundation
import Testing

// The chaos suites (contract 3 under load, contracts 2, 5 and 6 counted): bounded in rounds and
// threads, seeded, no sleeps. Thread interleavings are not reproducible; the random choices
// (roles, counts, which inner, when to cancel) are, from the seed each suite prints:
//
//   ASYNCBRIDGE_CHAOS_SEED=0x1234abcd swift test --filter Chaos
//
// Without the variable each run draws a new seed, so CI explores other choices every time.

/// The chaos suites, one at a time: each starts several busy threads, and all of them at once
/// would leave the cooperative pool's threads (two on two cores) a small share of the CPU, so
/// that the tests that run on the pool meanwhile (theirs, and everyone else's) crawl.
@Suite(.serialized) enum Chaos {}

/// The seed of this process's chaos runs: `ASYNCBRIDGE_CHAOS_SEED` (decimal or 0x-hex), or drawn
/// once per process.
let chaosSeed: UInt64 = {
    if let text = ProcessInfo.processInfo.environment["ASYNCBRIDGE_CHAOS_SEED"] {
        let parsed = text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
        if let parsed { return parsed }
    }
    return UInt64.random(in: 0...UInt64.max)
}()

/// The seed as `ASYNCBRIDGE_CHAOS_SEED` reads it.
var chaosSeedText: String { "0x" + String(chaosSeed, radix: 16) }

/// SplitMix64: small, fast, and the same sequence on every platform for a seed.
struct ChaosRandom: RandomNumberGenerator {
    private var state: UInt64

    /// The generator for one `stream` (a suite, a round, a thread) of the process's seed.
    init(_ stream: UInt64...) {
        state = chaosSeed
        for part in stream { state = (state ^ part) &* 0x9E37_79B9_7F4A_7C15 &+ 0x632B_E59B_D9B0_50D9 }
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `true` with probability `percent` / 100.
    mutating func chance(_ percent: Int) -> Bool {
        Int.random(in: 0..<100, using: &self) < percent
    }
}

/// What one chaos suite did, printed at its end (the README's Guarantees quote these lines).
struct ChaosFigures: CustomStringConvertible {
    var suite: String
    var rounds = 0
    var threads = 0
    var events = 0
    var cancels = 0
    /// Objects of the package created, counted in debug builds.
    var objects = 0
    /// Rounds after which some of them were still alive (a failure, reported as it happens).
    var roundsLeavingObjectsAlive = 0
    var notes: [String] = []

    var description: String {
        var parts = ["seed \(chaosSeedText)", "\(rounds) rounds"] + (threads > 0 ? ["\(threads) thread\(threads == 1 ? "" : "s")"] : []) + ["\(events) events", "\(cancels) cancellations"]
        #if DEBUG
        parts.append("\(objects) objects created, " + (roundsLeavingObjectsAlive == 0 ? "none alive after" : "some alive after \(roundsLeavingObjectsAlive) rounds"))
        #endif
        return "chaos \(suite): " + (parts + notes).joined(separator: ", ")
    }

    func print() {
        Swift.print(description)
    }

    /// Adds a finished round: its events and cancellations, and the objects `live` counted,
    /// after waiting until none of them is alive (which fails the test, labelled `round`, if
    /// some stay).
    mutating func record(_ round: String, events: Int, cancels: Int, live: ChaosLiveObjects) async {
        rounds += 1
        self.events += events
        self.cancels += cancels
        if !(await live.expectNoneAlive(round)) { roundsLeavingObjectsAlive += 1 }
        objects += live.created
    }
}

/// Counts the package's live objects created inside ``track(_:)`` (debug builds; release
/// builds count nothing and ``expectNoneAlive(_:)`` checks nothing).
final class ChaosLiveObjects: Sendable {
    #if DEBUG
    let scope = LiveObjectScope()
    #endif

    func track<Result>(_ body: () throws -> Result) rethrows -> Result {
        #if DEBUG
        return try scope.track(body)
        #else
        return try body()
        #endif
    }

    func track<Result>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Result) async rethrows -> Result {
        #if DEBUG
        return try await scope.track(isolation: isolation, body)
        #else
        return try await body()
        #endif
    }

    /// How many objects were created inside ``track(_:)`` (0 in release builds).
    var created: Int {
        #if DEBUG
        return scope.created
        #else
        return 0
        #endif
    }

    /// Waits (without sleeping: woken by the release of the last one) until nothing created
    /// inside ``track(_:)`` is alive; fails after ``poolDeadlockSeconds`` (tasks may still be
    /// winding down), saying how many are still alive.
    /// Returns whether none is (always `true` in release builds).
    @discardableResult
    func expectNoneAlive(_ what: String, sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
        #if DEBUG
        let none = DispatchSemaphore(value: 0)
        scope.whenNoneAlive { none.signal() }
        let noneAlive = await waitOffThePool(none, seconds: poolDeadlockSeconds)
        #expect(noneAlive, "\(what): \(scope.alive) of \(scope.created) objects still alive after \(poolDeadlockSeconds) s (seed \(chaosSeedText))", sourceLocation: sourceLocation)
        return noneAlive
        #else
        return true
        #endif
    }
}

/// How long a wait that needs the cooperative pool may take before it counts as a deadlock.
/// Longer than a wait on threads alone (10 s): under the thread sanitizer, with every suite
/// running at once on two cores, the pool's two threads can be busy (or blocked by other
/// tests' synchronous waits) for more than 10 s.
let poolDeadlockSeconds = 30

/// Waits for `semaphore` on a thread of its own, up to `seconds` (a deadlock detector, not a
/// synchroniser); returns whether it was signalled.
func waitOffThePool(_ semaphore: DispatchSemaphore, seconds: Int = 10) async -> Bool {
    await withCheckedContinuation { done in
        DispatchQueue(label: "chaos.wait").async {
            done.resume(returning: semaphore.wait(timeout: .now() + .seconds(seconds)) == .success)
        }
    }
}

/// Runs `body(index)` on `count` threads of their own (plain threads that run no Swift task),
/// released together, each inside `live.track`; waits up to `seconds` for all of them to end.
/// Returns whether they all ended.
func onThreads(
    _ count: Int,
    tracking live: ChaosLiveObjects,
    seconds: Int = 10,
    _ body: @escaping @Sendable (Int) -> Void
) async -> Bool {
    let start = DispatchSemaphore(value: 0)
    let ended = DispatchSemaphore(value: 0)
    let finished = DispatchSemaphore(value: 0)
    for index in 0..<count {
        let thread = Thread {
            start.wait()
            live.track { body(index) }
            ended.signal()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    for _ in 0..<count { start.signal() }
    DispatchQueue(label: "chaos.join").async {
        for _ in 0..<count { ended.wait() }
        finished.signal()
    }
    return await waitOffThePool(finished, seconds: seconds)
}

/// A subscriber that checks the Rx grammar as events arrive: `value* (finished | failure)?`,
/// never two events at once, nothing after its completion, nothing after it cancelled itself
/// from its own handler, and at most one event (the one in flight) after another thread's
/// `cancel()` returned (contract 3).
///
/// Several threads may call the token's `cancel()` at once: the same rules hold after the second
/// call returned as after the first (the second returns at once, and cancellation has taken
/// effect by then).
final class GrammarProbe<Element: Sendable, Failure: Error>: Sendable {
    struct State {
        var inside = false
        var values: [Element] = []
        var completions: [FlowCompletion<Failure>] = []
        var token: CancellationToken?
        var cancelling = false
        var cancelledItself = false
        var cancelReturned = false
        var afterCancel = 0
        /// A second canceller (which found the token taken) has returned: from the handler, or
        /// from another thread.
        var secondCancelInHandler = false
        var secondCancelReturned = false
        var afterSecondCancel = 0
        var violations: [String] = []
    }

    let name: String
    let state = SharedLock(State())
    /// Signalled once per completion received.
    let completed = DispatchSemaphore(value: 0)
    /// Called in the handler after each value is recorded (outside the probe's lock), with
    /// the count so far; may cancel the probe (``cancelFromHandler()``).
    let onValue: @Sendable (GrammarProbe, Int) -> Void

    init(_ name: String, onValue: @escaping @Sendable (GrammarProbe, Int) -> Void = { _, _ in }) {
        self.name = name
        self.onValue = onValue
    }

    /// Subscribes to `flow`, and keeps the token.
    func subscribe(to flow: Flow<Element, Failure>) {
        let token = flow.subscribe { [self] event in receive(event) }
        state.withLock { $0.token = token }
    }

    private func enter(_ what: String) {
        state.withLock { state in
            if state.inside { state.violations.append("\(what) while another event was being delivered") }
            state.inside = true
            if !state.completions.isEmpty { state.violations.append("\(what) after the completion") }
            if state.cancelledItself { state.violations.append("\(what) after cancelling itself in its handler") }
            if state.cancelReturned {
                state.afterCancel += 1
                if state.afterCancel > 1 { state.violations.append("\(what): \(state.afterCancel) events after cancel() returned") }
            }
            if !state.cancelledItself, !state.cancelReturned, state.secondCancelInHandler || state.secondCancelReturned {
                state.afterSecondCancel += 1
                if state.secondCancelInHandler || state.afterSecondCancel > 1 {
                    state.violations.append("\(what) after a second, concurrent cancel() returned")
                }
            }
        }
    }

    private func receive(_ event: FlowEvent<Element, Failure>) {
        switch event {
        case .value(let value):
            enter("a value")
            let count = state.withLock { state -> Int in
                state.values.append(value)
                state.inside = false
                return state.values.count
            }
            onValue(self, count)
        case .finished:
            enter("finished")
            state.withLock { state in
                state.completions.append(.finished)
                state.inside = false
            }
            completed.signal()
        case .failure(let error):
            enter("a failure")
            state.withLock { state in
                state.completions.append(.failure(error))
                state.inside = false
            }
            completed.signal()
        }
    }

    /// The token for this caller; `nil` if `subscribe` has not returned yet. `first` is false
    /// when another caller asked before.
    private func takeToken() -> (token: CancellationToken?, first: Bool) {
        state.withLock { state in
            guard let token = state.token else { return (nil, !state.cancelling) }
            defer { state.cancelling = true }
            return (token, !state.cancelling)
        }
    }

    /// From the handler: cancels this subscription (if `subscribe` has returned its token);
    /// nothing may arrive afterwards. Returns whether it cancelled.
    @discardableResult
    func cancelFromHandler() -> Bool {
        let (token, first) = takeToken()
        guard let token else { return false }
        token.cancel()
        state.withLock { state in
            if first { state.cancelledItself = true } else { state.secondCancelInHandler = true }
        }
        return true
    }

    /// From any thread: cancels this subscription; at most the event in flight may still
    /// arrive.
    func cancel() {
        let (token, first) = takeToken()
        guard let token else { return }
        token.cancel()
        state.withLock { state in
            if first { state.cancelReturned = true } else { state.secondCancelReturned = true }
        }
    }

    var values: [Element] { state.withLock { $0.values } }
    var completions: [FlowCompletion<Failure>] { state.withLock { $0.completions } }
    /// Whether a `cancel()` of this probe has returned (its own, or a second one).
    var isCancelled: Bool { state.withLock { $0.cancelledItself || $0.cancelReturned || $0.secondCancelInHandler || $0.secondCancelReturned } }
    var violations: [String] { state.withLock { $0.violations } }
    /// Events that arrived after a second, concurrent `cancel()` had returned: at most the one in
    /// flight on another thread.
    var eventsAfterSecondCancel: Int { state.withLock { $0.afterSecondCancel } }

    /// Drops the token (after the checks), so the round keeps nothing alive.
    func release() { state.withLock { $0.token = nil } }
}

/// A hot source built with `Flow.create`: every subscription registers its emitter, producer
/// threads send to every registered emitter, and the cancel action unregisters it. Counts
/// the runs (subscriptions of the source) and how often each run's cancel action ran.
final class ChaosHotSource<Element: Sendable, Failure: Error>: Sendable {
    struct State {
        var emitters: [Int: FlowEmitter<Element, Failure>] = [:]
        var runs = 0
        var cancelsPerRun: [Int] = []
        var sent = 0
    }

    let state = SharedLock(State())

    var flow: Flow<Element, Failure> {
        Flow.create { [state] emitter in
            let run = state.withLock { state -> Int in
                defer { state.runs += 1 }
                state.emitters[state.runs] = emitter
                state.cancelsPerRun.append(0)
                return state.runs
            }
            emitter.onCancel {
                let removed = state.withLock { state -> FlowEmitter<Element, Failure>? in
                    state.cancelsPerRun[run] += 1
                    return state.emitters.removeValue(forKey: run)
                }
                _ = removed  // released outside the lock
            }
        }
    }

    /// Sends `value` to every run registered now; returns to how many.
    @discardableResult
    func send(_ value: Element) -> Int {
        let emitters = state.withLock { state -> [FlowEmitter<Element, Failure>] in
            state.sent += 1
            return Array(state.emitters.values)
        }
        for emitter in emitters { emitter.send(value) }
        return emitters.count
    }

    /// Finishes every run registered now and forgets them; returns their numbers.
    @discardableResult
    func finishAll() -> Set<Int> {
        let emitters = state.withLock { state -> [Int: FlowEmitter<Element, Failure>] in
            defer { state.emitters = [:] }
            return state.emitters
        }
        for emitter in emitters.values { emitter.finish() }
        return Set(emitters.keys)
    }

    var runs: Int { state.withLock { $0.runs } }
    var cancelsPerRun: [Int] { state.withLock { $0.cancelsPerRun } }
    /// Runs neither finished by ``finishAll()`` nor cancelled.
    var open: Int { state.withLock { $0.emitters.count } }
}
