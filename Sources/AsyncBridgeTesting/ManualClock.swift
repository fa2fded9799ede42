@_spi(AsyncBridgeInternals) import AsyncBridge

/// A clock whose time moves only when a test advances it, so time-based code (`timeout`,
/// `delay`, `debounce`, `throttle`, retry backoff) is tested without sleeping.
///
/// Pass it wherever AsyncBridge takes a `Clock`. Code that sleeps on it runs in another task:
/// wait until it is asleep with ``waitForSleepers(_:)``, then ``advance(by:)`` past its deadline:
///
/// ```swift
/// let clock = ManualClock()
/// let answer = Task { try await withTimeout(.seconds(5), clock: clock) { try await api.load() } }
/// await clock.waitForSleepers(1)   // the timeout is armed
/// clock.advance(by: .seconds(5))   // and now it fires
/// ```
///
/// `advance(by:)` wakes, in deadline order, every sleeper whose deadline it reaches, then
/// returns; a woken task runs afterwards, on its own executor, and one that sleeps again waits
/// for a later `advance`.
///
/// RxSwift: `TestScheduler`; swift-async-algorithms' tests: `ManualClock`.
public final class ManualClock: Clock, Sendable {
    /// A point in the manual clock's time: the time elapsed since the clock was created.
    ///
    /// ```swift
    /// let deadline = clock.now.advanced(by: .seconds(1))
    /// ```
    public struct Instant: InstantProtocol, Sendable, Hashable, CustomStringConvertible {
        /// The time between the clock's creation and this instant.
        ///
        /// ```swift
        /// #expect(clock.now.offset == .seconds(3))
        /// ```
        public var offset: Duration

        /// The instant `offset` after the clock's creation.
        ///
        /// ```swift
        /// let start = ManualClock.Instant(offset: .zero)
        /// ```
        public init(offset: Duration) {
            self.offset = offset
        }

        /// The instant `duration` later.
        ///
        /// ```swift
        /// let deadline = clock.now.advanced(by: .seconds(1))
        /// ```
        public func advanced(by duration: Duration) -> Instant {
            Instant(offset: offset + duration)
        }

        /// The time from this instant to `other`.
        ///
        /// ```swift
        /// let left = clock.now.duration(to: deadline)
        /// ```
        public func duration(to other: Instant) -> Duration {
            other.offset - offset
        }

        /// Whether `lhs` comes before `rhs`.
        ///
        /// ```swift
        /// #expect(clock.now < deadline)
        /// ```
        public static func < (lhs: Instant, rhs: Instant) -> Bool {
            lhs.offset < rhs.offset
        }

        /// The offset, e.g. `2.5 seconds`.
        public var description: String { "\(offset)" }
    }

    private struct Sleeper {
        let id: UInt64
        let deadline: Instant
        let continuation: UnsafeContinuation<Void, any Error>
    }

    private struct SleeperWaiter {
        let id: UInt64
        let count: Int
        let continuation: UnsafeContinuation<Void, Never>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID: UInt64 = 0
        var sleepers: [Sleeper] = []
        /// Sleeps that have an id but no continuation yet, and those of them already cancelled.
        var unregistered: Set<UInt64> = []
        var cancelledBeforeRegistering: Set<UInt64> = []
        var sleeperWaiters: [SleeperWaiter] = []

        /// Removes and returns the waiters of `waitForSleepers` that the current count satisfies.
        mutating func satisfiedWaiters() -> [SleeperWaiter] {
            let count = sleepers.count
            let satisfied = sleeperWaiters.filter { $0.count <= count }
            sleeperWaiters.removeAll { $0.count <= count }
            return satisfied
        }
    }

    private let state = SharedLock(State())

    /// A clock at offset zero, with nobody asleep on it.
    ///
    /// ```swift
    /// let clock = ManualClock()
    /// ```
    public init() {}

    /// The current instant: moves only through ``advance(by:)`` and ``advance(to:)``.
    ///
    /// ```swift
    /// #expect(clock.now == .init(offset: .seconds(2)))
    /// ```
    public var now: Instant {
        state.withLock { $0.now }
    }

    /// Zero: the manual clock can be advanced by any amount.
    public var minimumResolution: Duration { .zero }

    /// How many tasks are asleep on the clock right now.
    ///
    /// ```swift
    /// #expect(clock.sleeperCount == 0)   // nothing is left waiting
    /// ```
    public var sleeperCount: Int {
        state.withLock { $0.sleepers.count }
    }

    /// Suspends until `deadline`, which only ``advance(by:)`` or ``advance(to:)`` can reach;
    /// returns at once if it has passed. Throws `CancellationError` when the task is cancelled,
    /// before or during the sleep, like `Task.sleep`.
    ///
    /// ```swift
    /// try await clock.sleep(until: clock.now.advanced(by: .seconds(1)), tolerance: nil)
    /// ```
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id: UInt64? = state.withLock { state in
            if deadline <= state.now { return nil }
            defer { state.nextID += 1 }
            state.unregistered.insert(state.nextID)
            return state.nextID
        }
        guard let id else { return }
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
                let (registered, waiters): (Bool, [SleeperWaiter]) = state.withLock { state in
                    state.unregistered.remove(id)
                    if state.cancelledBeforeRegistering.remove(id) != nil { return (false, []) }
                    if deadline <= state.now { return (false, []) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return (true, state.satisfiedWaiters())
                }
                if !registered {
                    if Task.isCancelled {
                        continuation.resume(throwing: CancellationError())
                    } else {
                        continuation.resume()
                    }
                }
                for waiter in waiters { waiter.continuation.resume() }
            }
        } onCancel: {
            let sleeper: Sleeper? = state.withLock { state in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
                    if state.unregistered.contains(id) { state.cancelledBeforeRegistering.insert(id) }
                    return nil
                }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward by `duration` (traps if negative) and wakes every sleeper whose
    /// deadline it reaches, earliest deadline first.
    ///
    /// ```swift
    /// clock.advance(by: .milliseconds(300))
    /// ```
    public func advance(by duration: Duration) {
        precondition(duration >= .zero, "ManualClock.advance(by:) cannot move time backwards (\(duration))")
        let due: [Sleeper] = state.withLock { state in
            state.now = state.now.advanced(by: duration)
            return Self.removeDue(from: &state)
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Moves the clock forward to `instant` (if it is later than ``now``) and wakes every sleeper
    /// whose deadline it reaches, earliest deadline first.
    ///
    /// ```swift
    /// clock.advance(to: .init(offset: .seconds(10)))
    /// ```
    public func advance(to instant: Instant) {
        let due: [Sleeper] = state.withLock { state in
            if instant > state.now { state.now = instant }
            return Self.removeDue(from: &state)
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Suspends until at least `count` tasks are asleep on the clock: the code under test has
    /// armed its timer. Returns early if the waiting task is cancelled (a test's time limit).
    ///
    /// ```swift
    /// await clock.waitForSleepers(2)
    /// ```
    public func waitForSleepers(_ count: Int = 1) async {
        let id = state.withLock { state -> UInt64 in
            defer { state.nextID += 1 }
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                let ready: Bool = state.withLock { state in
                    if state.sleepers.count >= count || Task.isCancelled { return true }
                    state.sleeperWaiters.append(SleeperWaiter(id: id, count: count, continuation: continuation))
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            let waiter: SleeperWaiter? = state.withLock { state in
                guard let index = state.sleeperWaiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleeperWaiters.remove(at: index)
            }
            waiter?.continuation.resume()
        }
    }

    private static func removeDue(from state: inout State) -> [Sleeper] {
        let now = state.now
        let due = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
        state.sleepers.removeAll { $0.deadline <= now }
        return due
    }
}
