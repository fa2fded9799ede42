#if DEBUG
@_spi(AsyncBridgeInternals) import AsyncBridge
import Dispatch
import Testing

/// The live-object counter the chaos suites rely on: it counts what was created inside its
/// scope, on this thread, in tasks started there, and on threads that bind it, and nothing else.
@Suite("LiveObjectScope: counts the package's objects created inside it")
struct LiveObjectScopeTests {
    @Test func countsObjectsCreatedInsideAndTheirRelease() {
        let scope = LiveObjectScope()
        var subject: LiveSubject<Int, Never>? = scope.track { LiveSubject() }
        var token: CancellationToken? = scope.track { subject?.flow.subscribe(onValue: { _ in }, onCompletion: { _ in }) }
        #expect(scope.created >= 2, "the subject and the subscription (which the token holds)")
        #expect(scope.alive == scope.created)
        token?.cancel()
        token = nil
        subject = nil
        #expect(scope.alive == 0)
    }

    @Test func reportsWhatIsKeptAlive() {
        let scope = LiveObjectScope()
        let kept = scope.track { LiveSubject<Int, Never>() }
        #expect(scope.alive == 1)
        let called = SharedLock(false)
        scope.whenNoneAlive { called.withLock { $0 = true } }
        #expect(!called.withLock { $0 }, "not while the subject is alive")
        _ = kept
    }

    @Test func ignoresObjectsCreatedOutsideIt() {
        let scope = LiveObjectScope()
        let outside = LiveSubject<Int, Never>()
        scope.track { outside.send(1) }
        let onOtherThread = DispatchSemaphore(value: 0)
        DispatchQueue(label: "unscoped").async {
            _ = LiveSubject<Int, Never>()  // no scope bound on this thread
            onOtherThread.signal()
        }
        onOtherThread.wait()
        #expect(scope.created == 0)
    }

    @Test func followsTasksStartedInside() async {
        let scope = LiveObjectScope()
        let task = scope.track { Task { LiveSubject<Int, Never>() } }
        let subject = await task.value
        #expect(scope.alive == 1)
        _ = subject
    }

    @Test func callsWhenNoneAliveOnTheThreadReleasingTheLast() async {
        let scope = LiveObjectScope()
        var subject: LiveSubject<Int, Never>? = scope.track { LiveSubject() }
        let released = SharedLock(false)
        scope.whenNoneAlive { released.withLock { $0 = true } }
        #expect(!released.withLock { $0 })
        subject = nil
        #expect(released.withLock { $0 })
        _ = subject
    }

    @Test func countsTheCompleterOfAWithCompletionCallWhileItRuns() async throws {
        let scope = LiveObjectScope()
        let aliveDuringTheCall = try await scope.track {
            try await withCompletion { (completion: @escaping @Sendable (Result<Int, Never>) -> Void) in
                completion(.success(scope.alive))
            }
        }
        #expect(aliveDuringTheCall == 1, "the call's completer")
        #expect(scope.alive == 0)
    }
}
#endif
