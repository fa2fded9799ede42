import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("Flow of flows: switchToLatest, merge, concat", .timeLimit(.minutes(1)))
struct FlowFlattenTests {
    @Test func switchToLatestFollowsTheNewestInnerAndCancelsTheOldOne() {
        let outer = ManualFlow<Flow<String, TestError>>(), first = ManualFlow<String>(), second = ManualFlow<String>()
        let recorder = FlowRecorder(outer.flow.switchToLatest())
        outer.send(first.flow)
        first.send("a")
        outer.send(second.flow)
        #expect(first.cancels.value == 1)
        first.send("x")
        second.send("b")
        outer.finish()
        #expect(!recorder.isCompleted)
        second.finish()
        #expect(recorder.events == marbles("ab|"))
    }

    @Test func mergeRunsEveryInnerAtOnce() {
        let outer = ManualFlow<Flow<String, TestError>>(), first = ManualFlow<String>(), second = ManualFlow<String>()
        let recorder = FlowRecorder(outer.flow.merge())
        outer.send(first.flow); outer.send(second.flow)
        first.send("a"); second.send("b"); first.send("c")
        outer.finish(); first.finish()
        #expect(!recorder.isCompleted)
        second.finish()
        #expect(recorder.events == marbles("abc|"))
    }

    @Test func mergeWithMaxConcurrentAndConcatQueueTheInners() {
        for flatten in [{ (flows: Flow<Flow<String, TestError>, TestError>) in flows.merge(maxConcurrent: 1) }, { $0.concat() }] {
            let outer = ManualFlow<Flow<String, TestError>>(), first = ManualFlow<String>(), second = ManualFlow<String>()
            let subscriptions = AtomicCounter()
            let recorder = FlowRecorder(flatten(outer.flow))
            outer.send(first.flow); outer.send(counting(second.flow, subscriptions))
            first.send("a")
            #expect(subscriptions.value == 0)
            first.finish()
            #expect(subscriptions.value == 1)
            second.send("b"); outer.finish(); second.finish()
            #expect(recorder.events == marbles("ab|"))
        }
    }

    @Test func innersThatCannotFailFlattenIntoAFlowThatCan() {
        let outer = LiveSubject<Flow<String, Never>, TestError>()
        let inners: [Flow<String, Never>] = [.sequence(["a", "b"]), .just("c")]
        let latest = FlowRecorder(outer.flow.switchToLatest())
        let merged = FlowRecorder(outer.flow.merge())
        let concatenated = FlowRecorder(outer.flow.concat())
        for inner in inners { outer.send(inner) }
        outer.fail(TestError(code: 5))
        for recorder in [latest, merged, concatenated] {
            #expect(recorder.events == marbles("abc#", failure: TestError(code: 5)))
        }
    }

    @Test func anInnerFailureFailsTheResultAndCancelsTheRest() {
        let outer = ManualFlow<Flow<String, TestError>>(), first = ManualFlow<String>(), second = ManualFlow<String>()
        let recorder = FlowRecorder(outer.flow.merge())
        outer.send(first.flow); outer.send(second.flow)
        first.fail(TestError(code: 9))
        #expect(recorder.events == [.failure(TestError(code: 9))])
        #expect(outer.cancels.value == 1 && second.cancels.value == 1)
    }

    @Test func cancellationCancelsTheOuterAndTheRunningInnersOnce() {
        let outer = ManualFlow<Flow<String, TestError>>(), first = ManualFlow<String>(), second = ManualFlow<String>()
        let recorder = FlowRecorder(outer.flow.merge())
        outer.send(first.flow); outer.send(second.flow)
        recorder.cancel()
        first.send("a")
        #expect(recorder.events.isEmpty)
        #expect(outer.cancels.value == 1 && first.cancels.value == 1 && second.cancels.value == 1)
    }
}
