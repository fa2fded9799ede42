@_spi(AsyncBridgeInternals) import AsyncBridge
import AsyncBridgeTesting
import Testing

/// A permission system: a status, and a prompt whose completion block the test holds and
/// answers (`answer`), as the user would.
final class FakePermission: Sendable {
    private let stored: SharedLock<(status: AuthorizationStatus, reads: Int)>
    let prompts = PendingOperation<Bool>()

    init(_ status: AuthorizationStatus) { stored = SharedLock((status, 0)) }

    var status: AuthorizationStatus {
        get { stored.withLock { $0.status } }
        set { stored.withLock { $0.status = newValue } }
    }

    var statusReads: Int { stored.withLock { $0.reads } }

    func readStatus() -> AuthorizationStatus {
        stored.withLock { state in
            state.reads += 1
            return state.status
        }
    }

    /// The user answers the prompt: the status becomes `status`, then the completion block
    /// gets `saying`.
    func answer(_ status: AuthorizationStatus, saying: Bool) {
        self.status = status
        prompts.complete(saying)
    }

    func gate() -> AuthorizationGate {
        AuthorizationGate(status: { self.readStatus() }, request: { self.prompts.start($0) })
    }
}

@Suite("AuthorizationGate: check, then request once", .timeLimit(.minutes(1)))
struct AuthorizationGateTests {
    @Test func twoSimultaneousCallersCauseOneRequest() async throws {
        let system = FakePermission(.notDetermined)
        let gate = system.gate()
        let first = Task { try await gate.requestAccess() }
        let second = Task { try await gate.requestAccess() }
        await system.prompts.waitUntilStarted()
        try await waitUntil { gate.waiterCount == 2 }
        system.answer(.granted, saying: true)
        try await first.value
        try await second.value
        #expect(system.prompts.starts == 1)
    }

    @Test func alreadyGrantedReturnsWithoutARequest() async throws {
        let system = FakePermission(.granted)
        try await system.gate().requestAccess()
        #expect(system.prompts.starts == 0)
        #expect(system.statusReads == 1)
    }

    @Test(arguments: [(AuthorizationStatus.denied, AuthorizationError.denied), (.restricted, .restricted)])
    func deniedOrRestrictedThrowsWithoutARequest(status: AuthorizationStatus, error: AuthorizationError) async {
        let system = FakePermission(status)
        await #expect(throws: error) { try await system.gate().requestAccess() }
        #expect(system.prompts.starts == 0)
    }

    @Test func theStatusReadAfterTheRequestDecidesNotItsAnswer() async throws {
        let system = FakePermission(.notDetermined)
        let gate = system.gate()
        let refused = Task { try await gate.requestAccess() }
        await system.prompts.waitUntilStarted()
        system.answer(.denied, saying: true)
        await #expect(throws: AuthorizationError.denied) { try await refused.value }

        let other = FakePermission(.notDetermined)
        let granted = Task { try await other.gate().requestAccess() }
        await other.prompts.waitUntilStarted()
        other.answer(.granted, saying: false)
        try await granted.value
    }

    @Test func aRequestThatLeavesTheStatusUndeterminedThrowsNotDetermined() async {
        let system = FakePermission(.notDetermined)
        let gate = system.gate()
        let dismissed = Task { try await gate.requestAccess() }
        await system.prompts.waitUntilStarted()
        system.answer(.notDetermined, saying: false)
        await #expect(throws: AuthorizationError.notDetermined) { try await dismissed.value }
    }

    @Test func onceGrantedLaterCallersDoNotAskAgain() async throws {
        let system = FakePermission(.notDetermined)
        let gate = system.gate()
        let first = Task { try await gate.requestAccess() }
        await system.prompts.waitUntilStarted()
        system.answer(.granted, saying: true)
        try await first.value
        try await gate.requestAccess()
        #expect(system.prompts.starts == 1)
        #expect(try await gate.status == .granted)
    }

    @Test func aCompletionCalledTwiceIsIgnoredAndReported() async throws {
        let system = FakePermission(.notDetermined)
        let line = #line; let gate = AuthorizationGate(status: { system.readStatus() }, request: { completion in
            system.status = .granted
            completion(true)
            completion(false)
        })
        let recorder = MisuseRecorder()
        try await recorder.record { try await gate.requestAccess() }
        #expect(recorder.expectable == reported([
            ExpectedReport(.completionCalledMoreThanOnce, "AuthorizationGate(request:)", line: line, "the later call was ignored"),
        ]))
    }

    @Test func aCompletionNeverCalledEndsWithTheStatusReadAfterwards() async throws {
        let system = FakePermission(.notDetermined)
        let (dropping, line) = (AuthorizationGate(status: { system.readStatus() }, request: { _ in }), #line)
        let recorder = MisuseRecorder()
        await #expect(throws: AuthorizationError.notDetermined) {
            try await recorder.record { try await dropping.requestAccess() }
        }
        #expect(recorder.expectable == reported([
            ExpectedReport(.completionNeverCalled, "AuthorizationGate(request:)", line: line, "the status read afterwards decided"),
        ]))
        // The system granted access but dropped the block: the status still decides.
        let granting = AuthorizationGate(status: { system.readStatus() }, request: { _ in system.status = .granted })
        try await granting.requestAccess()
    }

    @Test func cancellingOneCallerLeavesTheRequestToTheOthers() async throws {
        let system = FakePermission(.notDetermined)
        let gate = system.gate()
        let leaving = Task { try await gate.requestAccess() }
        let staying = Task { try await gate.requestAccess() }
        await system.prompts.waitUntilStarted()
        try await waitUntil { gate.waiterCount == 2 }
        leaving.cancel()
        await #expect(throws: CancellationError.self) { try await leaving.value }
        #expect(system.prompts.cancels == 0)
        system.answer(.granted, saying: true)
        try await staying.value
        #expect(system.prompts.starts == 1)
    }

    @Test func whenEveryCallerLeavesThePromptStaysAndTheNextCallerJoinsIt() async throws {
        let system = FakePermission(.notDetermined)
        let gate = system.gate()
        let leaving = Task { try await gate.requestAccess() }
        await system.prompts.waitUntilStarted()
        try await waitUntil { gate.waiterCount == 1 }
        leaving.cancel()
        await #expect(throws: CancellationError.self) { try await leaving.value }
        let next = Task { try await gate.requestAccess() }
        try await waitUntil { gate.waiterCount == 1 }
        system.answer(.granted, saying: true)
        try await next.value
        #expect(system.prompts.starts == 1)
    }

    @Test func aCancelledCallerAsksNothing() async {
        let system = FakePermission(.notDetermined)
        let gate = system.gate()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await gate.requestAccess()
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(system.prompts.starts == 0)
    }

    @Test func theFutureFormHasATypedFailureAndSharesOneRequest() async throws {
        let system = FakePermission(.notDetermined)
        let gate = system.gate()
        let future = gate.future()
        #expect(system.statusReads == 0, "lazy")
        let viaFuture = Task { try await future.result }
        let viaCall = Task { try await gate.requestAccess() }
        await system.prompts.waitUntilStarted()
        try await waitUntil { gate.waiterCount == 2 }
        system.answer(.denied, saying: false)
        let result = try await viaFuture.value
        #expect(throws: AuthorizationError.denied) { try result.get() }
        await #expect(throws: AuthorizationError.denied) { try await viaCall.value }
        #expect(system.prompts.starts == 1)
        let granted = try await FakePermission(.granted).gate().future().result
        #expect(throws: Never.self) { try granted.get() }
    }

    @Test func theFlowFormDeliversOneValueThenFinishesOrFails() async throws {
        let granted = FlowRecorder(FakePermission(.granted).gate().flow())
        await granted.waitForCompletion()
        #expect(granted.values.count == 1)
        #expect(granted.events.count == 2)
        if case .finished = granted.events.last {} else { Issue.record("expected finished, got \(granted.events)") }

        let system = FakePermission(.notDetermined)
        let gate = system.gate()
        let first = FlowRecorder(gate.flow())
        let second = FlowRecorder(gate.flow())
        await system.prompts.waitUntilStarted()
        try await waitUntil { gate.waiterCount == 2 }
        system.answer(.restricted, saying: false)
        await first.waitForCompletion()
        await second.waitForCompletion()
        for recorder in [first, second] {
            if case .failure(.restricted)? = recorder.events.last {} else { Issue.record("got \(recorder.events)") }
            #expect(recorder.events.count == 1)
        }
        #expect(system.prompts.starts == 1)
    }

    /// Callers arriving while the request completes, on another thread, in 2,000 rounds:
    /// every round asks exactly once and every caller gets access.
    @Test func racingCallersAlwaysCauseExactlyOneRequest() async throws {
        for _ in 0..<2_000 {
            let system = FakePermission(.notDetermined)
            let requests = AtomicCounter()
            let gate = AuthorizationGate(status: { system.readStatus() }, request: { completion in
                requests.increment()
                Task {
                    system.status = .granted
                    completion(true)
                }
            })
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<3 { group.addTask { try await gate.requestAccess() } }
                try await group.waitForAll()
            }
            #expect(requests.value == 1)
        }
    }

    // MARK: Timeout

    @Test func aRequestThatNeverAnswersTimesOut() async throws {
        let clock = ManualClock()
        let system = FakePermission(.notDetermined)
        let gate = AuthorizationGate(timeout: .seconds(30), clock: clock, status: { system.readStatus() }) {
            system.prompts.start($0)
        }
        let first = Task { try await gate.requestAccess() }
        let second = Task { try await gate.requestAccess() }
        await system.prompts.waitUntilStarted()
        await clock.waitForSleepers(1)
        try await waitUntil { gate.waiterCount == 2 }
        clock.advance(by: .seconds(29))
        #expect(gate.waiterCount == 2)
        clock.advance(by: .seconds(1))
        await #expect(throws: AuthorizationError.timedOut) { try await first.value }
        await #expect(throws: AuthorizationError.timedOut) { try await second.value }
        #expect(system.prompts.complete(true), "a late answer is ignored")
        #expect(system.prompts.starts == 1)
    }

    @Test func atTheDeadlineAGrantedStatusStillGrants() async throws {
        let clock = ManualClock()
        let system = FakePermission(.notDetermined)
        let gate = AuthorizationGate(timeout: .seconds(30), clock: clock, status: { system.readStatus() }) {
            system.prompts.start($0)
        }
        let caller = Task { try await gate.requestAccess() }
        await system.prompts.waitUntilStarted()
        await clock.waitForSleepers(1)
        system.status = .granted  // granted, but the system never calls back
        clock.advance(by: .seconds(30))
        try await caller.value
    }

    @Test func anAnswerBeforeTheDeadlineDisarmsTheTimer() async throws {
        let clock = ManualClock()
        let system = FakePermission(.notDetermined)
        let gate = AuthorizationGate(timeout: .seconds(30), clock: clock, status: { system.readStatus() }) {
            system.prompts.start($0)
        }
        let caller = Task { try await gate.requestAccess() }
        await system.prompts.waitUntilStarted()
        await clock.waitForSleepers(1)
        system.answer(.granted, saying: true)
        try await caller.value
        #expect(clock.sleeperCount == 0)
    }

    @Test func theAsyncRequestFormAndItsErrors() async throws {
        let system = FakePermission(.notDetermined)
        let asking = AuthorizationGate(status: { system.readStatus() }, request: { () async throws -> Bool in
            system.status = .granted
            return true
        })
        try await asking.requestAccess()

        let failing = FakePermission(.notDetermined)
        let throwing = AuthorizationGate(status: { failing.readStatus() }, request: { () async throws -> Bool in
            throw TestError()
        })
        await #expect(throws: AuthorizationError.notDetermined) { try await throwing.requestAccess() }
    }

    @Test func aCallerAfterATimeoutJoinsThePromptStillOnScreen() async throws {
        let clock = ManualClock()
        let system = FakePermission(.notDetermined)
        let gate = AuthorizationGate(timeout: .seconds(30), clock: clock, status: { system.readStatus() }) {
            system.prompts.start($0)
        }
        let first = Task { try await gate.requestAccess() }
        await system.prompts.waitUntilStarted()
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(30))
        await #expect(throws: AuthorizationError.timedOut) { try await first.value }
        #expect(system.prompts.isHoldingCompletion)   // the prompt is still on screen
        let second = Task { try await gate.requestAccess() }
        try await waitUntil { gate.waiterCount == 1 }   // it joined the prompt
        for _ in 0..<1_000 { await Task.yield() }        // room for a wrong second prompt
        #expect(system.prompts.starts == 1)
        system.answer(.granted, saying: true)
        try await second.value
        #expect(system.prompts.starts == 1)
    }
}
