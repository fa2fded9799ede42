@_spi(AsyncBridgeInternals) import AsyncBridge
import AsyncBridgeTesting

/// A gate that operations wait at until the test opens it.
final class Gate: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = SharedLock(State())

    /// Returns once the gate is open (at once if it is).
    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isOpen = state.withLock { state -> Bool in
                if !state.isOpen { state.waiters.append(continuation) }
                return state.isOpen
            }
            if isOpen { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// Records its own release: a test awaits `released.firstCall()` to see that whatever held it
/// let it go (a leak makes the test hit its time limit).
final class DeinitSignal: Sendable {
    let released: CompletionSpy<Void>
    init(_ released: CompletionSpy<Void>) { self.released = released }
    deinit { released.record(()) }
}

/// Calls `onRelease` from its deinitialiser: captured by a closure the code under test holds,
/// it runs whatever it is given wherever that closure is released.
final class ReleaseHook: Sendable {
    let onRelease: @Sendable () -> Void
    init(_ onRelease: @escaping @Sendable () -> Void) { self.onRelease = onRelease }
    deinit { onRelease() }
}

/// Waits until `condition` holds, letting other tasks run in between. For states that the
/// code under test reaches without telling anyone (callers that joined a flight and wait).
/// Throws `CancellationError` when the test's time limit cancels it.
func waitUntil(_ condition: () -> Bool) async throws {
    while !condition() {
        try Task.checkCancellation()
        await Task.yield()
    }
}
