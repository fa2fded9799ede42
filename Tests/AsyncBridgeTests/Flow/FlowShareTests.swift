import Dispatch
import Testing
import AsyncBridge
import AsyncBridgeTesting

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
