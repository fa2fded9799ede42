import Dispatch
import Testing
@_spi(AsyncBridgeInternals) import AsyncBridge
import AsyncBridgeTesting

/// An upstream whose runs (one per connection of a shared flow) are kept apart: each run's
/// emitter, and how often each run's cancel action ran. Runs are started by the test's own
/// subscriptions, one at a time.
private final class ManualRuns: Sendable {
    private let runs = Box<[(emitter: FlowEmitter<String, TestError>, cancels: AtomicCounter)]>([])

    var flow: Flow<String, TestError> {
        Flow.create { [runs] emitter in
            let cancels = AtomicCounter()
            runs.value.append((emitter, cancels))
            emitter.onCancel { cancels.increment() }
        }
    }

    /// How many runs started.
    var count: Int { runs.value.count }
    /// The emitter of run `index` (from 0).
    func emitter(_ index: Int) -> FlowEmitter<String, TestError> { runs.value[index].emitter }
    /// How often the cancel action of run `index` ran.
    func cancels(_ index: Int) -> Int { runs.value[index].cancels.value }
}

/// Holds the first event that reaches `hold` on its thread until the test releases it: the
/// event is then in flight between its source and the operator downstream. Later events pass.
private final class InFlightGate: Sendable {
    private let held = SharedLock(false)
    private let entered = DispatchSemaphore(value: 0)
    private let proceed = DispatchSemaphore(value: 0)

    /// Called by the event's thread: blocks the first caller until ``release()``.
    func hold() {
        let first = held.withLock { held in
            defer { held = true }
            return !held
        }
        guard first else { return }
        entered.signal()
        proceed.wait()
    }

    /// Waits until an event is held; `false` after 10 s (a deadlock detector, not a pause).
    func waitUntilHeld() -> Bool { entered.wait(timeout: .now() + 10) == .success }

    func release() { proceed.signal() }
}

/// Runs `body` on a thread of its own. The function returned waits until `body` has returned;
/// `false` after 10 s (a deadlock detector, not a pause).
private func runOnAnotherThread(_ label: String, _ body: @escaping @Sendable () -> Void) -> @Sendable () -> Bool {
    let done = DispatchSemaphore(value: 0)
    DispatchQueue(label: label).async {
        body()
        done.signal()
    }
    return { done.wait(timeout: .now() + 10) == .success }
}

@Suite("Flow: share(replay:scope:)", .timeLimit(.minutes(1)))
struct FlowShareTests {
    @Test func subscribersShareOneRunOfTheUpstream() {
        let source = ManualFlow<String>()
        let runs = AtomicCounter()
        let shared = Flow.deferred { runs.increment(); return source.flow }.share()
        let first = FlowRecorder(shared)
        source.send("a")
        let second = FlowRecorder(shared)
        source.send("b")
        source.finish()
        #expect(runs.value == 1)
        #expect(first.events == marbles("ab|"))
        #expect(second.events == marbles("b|"))
    }

    @Test func replaySendsTheLatestValuesToANewSubscriber() {
        let source = ManualFlow<String>()
        let shared = source.flow.share(replay: 2)
        let first = FlowRecorder(shared)
        source.send("a"); source.send("b"); source.send("c")
        let late = FlowRecorder(shared)
        source.send("d")
        #expect(first.values == ["a", "b", "c", "d"])
        #expect(late.values == ["b", "c", "d"])
    }

    @Test func whileConnectedCancelsWhenTheLastLeavesAndReconnectsEmpty() {
        let source = ManualFlow<String>()
        let runs = AtomicCounter()
        let shared = Flow.deferred { runs.increment(); return source.flow }.share(replay: 1)
        let first = FlowRecorder(shared), second = FlowRecorder(shared)
        source.send("a")
        first.cancel()
        #expect(source.cancels.value == 0)
        second.cancel()
        #expect(source.cancels.value == 1)
        let third = FlowRecorder(shared)
        #expect(runs.value == 2)
        #expect(third.values == [], "the buffer went with the connection")
        source.send("b")
        #expect(third.values == ["b"])
    }

    @Test func whileConnectedRunsACompletedUpstreamAgainForALateSubscriber() {
        let runs = AtomicCounter()
        let shared = Flow<Int, Never>.deferred { runs.increment(); return .just(runs.value) }.share(replay: 1)
        #expect(FlowRecorder(shared).events == [.value(1), .finished])
        #expect(FlowRecorder(shared).events == [.value(2), .finished], "RxSwift's whileConnected reconnects")
    }

    @Test func foreverDoesNotRunACompletedRequestAgain() {
        let api = PendingOperation<Result<Int, TestError>>()
        let request = Flow<Int, TestError> { api.start($0) }.share(replay: 1, scope: .forever)
        let screen = FlowRecorder(request)
        api.complete(.success(7))
        let late = FlowRecorder(request)
        #expect(screen.events == [.value(7), .finished])
        #expect(late.events == [.value(7), .finished])
        #expect(api.starts == 1)
    }

    @Test func foreverKeepsTheBufferAcrossReconnections() {
        let source = ManualFlow<String>()
        let shared = source.flow.share(replay: 1, scope: .forever)
        let first = FlowRecorder(shared)
        source.send("a")
        first.cancel()
        #expect(source.cancels.value == 1)
        let second = FlowRecorder(shared)
        #expect(second.values == ["a"])
        source.send("b")
        #expect(second.values == ["a", "b"])
    }

    /// The buffer carried over is the latest values, whichever connection received them.
    @Test func foreverCarriesTheLatestValuesOfEachConnectionToTheNext() {
        let source = ManualFlow<String>()
        let shared = source.flow.share(replay: 2, scope: .forever)
        let first = FlowRecorder(shared)
        source.send("a"); source.send("b"); source.send("c")
        first.cancel()
        let second = FlowRecorder(shared)
        #expect(second.values == ["b", "c"])
        source.send("d")
        second.cancel()
        let third = FlowRecorder(shared)
        #expect(third.values == ["c", "d"], "one value from each of the two connections before")
        source.send("e")
        source.finish()
        #expect(third.events == [.value("c"), .value("d"), .value("e"), .finished])
        #expect(FlowRecorder(shared).events == [.value("d"), .value("e"), .finished])
        #expect(source.cancels.value == 2)
    }

    /// A value that run 1 delivers after its only subscriber left (it was in flight on another
    /// thread) is carried to no later connection: not to the next, nor to the one after it.
    @Test func foreverCarriesNoValueThatAConnectionDeliversAfterItEnded() throws {
        let runs = ManualRuns()
        let gate = InFlightGate()
        let shared = runs.flow
            .handleEvents(onValue: { value in if value == "late" { gate.hold() } })
            .share(replay: 1, scope: .forever)
        let first = FlowRecorder(shared)
        runs.emitter(0).send("a")
        let sent = runOnAnotherThread("run 1 sends") { runs.emitter(0).send("late") }
        #expect(gate.waitUntilHeld())
        first.cancel()
        gate.release()
        #expect(sent(), "run 1 delivered its late value after it ended")
        let second = FlowRecorder(shared)
        try #require(runs.count == 2, "the second subscriber reconnected")
        #expect(second.events == [.value("a")])
        second.cancel()
        let third = FlowRecorder(shared)
        try #require(runs.count == 3, "and the third")
        #expect(third.events == [.value("a")], "run 1's late value was carried to no connection")
        third.cancel()
        #expect(first.events == [.value("a")])
    }

    /// Issue 10: run 1's completion, in flight on another thread while its only subscriber
    /// leaves and a new one reconnects, was taken for run 2's: the new subscriber got it, and
    /// run 2 was never cancelled.
    @Test func foreverIgnoresTheCompletionOfAConnectionThatEndedWhileItWasInFlight() throws {
        let runs = ManualRuns()
        let gate = InFlightGate()
        let shared = runs.flow.handleEvents(onCompletion: { _ in gate.hold() }).share(replay: 1, scope: .forever)
        let first = FlowRecorder(shared)
        runs.emitter(0).send("a")
        let finished = runOnAnotherThread("run 1 finishes") { runs.emitter(0).finish() }
        #expect(gate.waitUntilHeld())
        first.cancel()
        let second = FlowRecorder(shared)
        gate.release()
        #expect(finished())
        try #require(runs.count == 2, "the second subscriber reconnected")
        #expect(first.events == [.value("a")])
        #expect(second.events == [.value("a")], "run 1's completion is not run 2's")
        runs.emitter(1).send("b")
        #expect(second.events == [.value("a"), .value("b")])
        second.cancel()
        #expect(runs.cancels(1) == 1, "run 2 is cancelled when its last subscriber leaves")
        let third = FlowRecorder(shared)
        #expect(runs.count == 3, "and the next subscriber reconnects")
        #expect(third.events == [.value("b")])
        third.cancel()
    }

    /// Issue 10: a value of run 1, in flight while its only subscriber leaves and a new one
    /// reconnects, reached the new subscriber and the replay buffer.
    @Test func foreverIgnoresAValueOfAConnectionThatEndedWhileItWasInFlight() throws {
        let runs = ManualRuns()
        let gate = InFlightGate()
        let shared = runs.flow
            .handleEvents(onValue: { value in if value == "late" { gate.hold() } })
            .share(replay: 1, scope: .forever)
        let first = FlowRecorder(shared)
        runs.emitter(0).send("a")
        let sent = runOnAnotherThread("run 1 sends") { runs.emitter(0).send("late") }
        #expect(gate.waitUntilHeld())
        first.cancel()
        let second = FlowRecorder(shared)
        gate.release()
        #expect(sent())
        try #require(runs.count == 2, "the second subscriber reconnected")
        #expect(second.events == [.value("a")], "run 1's late value is not run 2's")
        let third = FlowRecorder(shared)
        #expect(third.events == [.value("a")], "nor is it in the buffer")
        second.cancel()
        third.cancel()
        #expect(runs.cancels(0) == 1 && runs.cancels(1) == 1)
    }

    /// The same race with `.whileConnected`: run 1's completion ends no later connection.
    @Test func whileConnectedIgnoresTheCompletionOfAConnectionThatEndedWhileItWasInFlight() throws {
        let runs = ManualRuns()
        let gate = InFlightGate()
        let shared = runs.flow.handleEvents(onCompletion: { _ in gate.hold() }).share(replay: 1)
        let first = FlowRecorder(shared)
        runs.emitter(0).send("a")
        let finished = runOnAnotherThread("run 1 finishes") { runs.emitter(0).finish() }
        #expect(gate.waitUntilHeld())
        first.cancel()
        let second = FlowRecorder(shared)
        gate.release()
        #expect(finished())
        try #require(runs.count == 2, "the second subscriber reconnected")
        #expect(second.events == [])
        runs.emitter(1).send("b")
        #expect(second.events == [.value("b")])
        second.cancel()
        #expect(runs.cancels(1) == 1, "run 2 is cancelled when its last subscriber leaves")
    }

    /// Issue 10: a `create` whose cancel action reports the cancellation (`emitter.fail`) made
    /// `.forever` store that report as the shared completion; the next subscriber got the
    /// failure instead of reconnecting.
    @Test func foreverReconnectsWhenTheCancelActionOfItsUpstreamSendsAFailure() {
        let runs = AtomicCounter()
        let shared = Flow<Int, TestError>.create { emitter in
            runs.increment()
            emitter.send(runs.value)
            emitter.onCancel { emitter.fail(TestError(code: 99)) }
        }.share(replay: 1, scope: .forever)
        let first = FlowRecorder(shared)
        first.cancel()
        let second = FlowRecorder(shared)
        #expect(runs.value == 2)
        #expect(first.events == [.value(1)])
        #expect(second.events == [.value(1), .value(2)])
        second.cancel()
    }

    @Test func prefixOnASharedFlowLeavesIt() {
        let source = ManualFlow<String>()
        let shared = source.flow.share()
        let one = FlowRecorder(shared.prefix(1))
        source.send("a")
        #expect(one.events == marbles("a|"))
        #expect(source.cancels.value == 1, "the only subscriber left")
    }

    @Test func subscribersJoiningAndLeavingFromManyThreadsAreSafe() {
        let source = ManualFlow<Int>()
        let shared = source.flow.share(replay: 1)
        let steady = FlowRecorder(shared)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for value in 0..<500 {
                if thread == 0 { source.send(value) } else { FlowRecorder(shared).cancel() }
            }
        }
        #expect(steady.values == Array(0..<500))
        steady.cancel()
        #expect(source.cancels.value == 1)
    }

    @Test func nothingIsRetainedAfterTheLastSubscriberLeaves() {
        weak var captured: Tracked?
        let source = ManualFlow<Int>()
        let recorder: FlowRecorder<Int, TestError>
        do {
            let tracked = Tracked()
            captured = tracked
            recorder = FlowRecorder(source.flow.map { value -> Int in _ = tracked; return value }.share(replay: 1))
        }
        source.send(1)
        recorder.cancel()
        #expect(captured == nil)
    }
}
