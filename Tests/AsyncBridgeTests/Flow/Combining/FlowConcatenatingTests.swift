import Testing
import AsyncBridge
import AsyncBridgeTesting

private enum Screen: Sendable, Equatable {
    case empty, loading
}

@Suite("Flow: append, prepend(flow), concat", .timeLimit(.minutes(1)))
struct FlowConcatenatingTests {
    @Test func appendSubscribesTheOtherFlowOnlyOnceThisOneHasFinished() {
        let first = ManualFlow<String>(), second = ManualFlow<String>()
        let subscriptions = AtomicCounter()
        let recorder = FlowRecorder(first.flow.append(counting(second.flow, subscriptions)))
        first.send("a")
        #expect(subscriptions.value == 0)
        first.finish()
        #expect(subscriptions.value == 1)
        second.send("b"); second.finish()
        #expect(recorder.events == marbles("ab|"))
        #expect(first.cancels.value == 0 && second.cancels.value == 0)
    }

    @Test func aFailureEndsTheConcatenation() {
        let subscriptions = AtomicCounter()
        let failing = marbleFlow("a#", failure: TestError()).append(counting(marbleFlow("b|"), subscriptions))
        #expect(FlowRecorder(failing).events == marbles("a#", failure: TestError()))
        #expect(subscriptions.value == 0)
        #expect(FlowRecorder(marbleFlow("a|", failure: TestError()).append(marbleFlow("b#", failure: TestError()))).events == marbles("ab#", failure: TestError()))
    }

    @Test func cancellationCancelsTheRunningFlowOnceAndSubscribesNoOther() {
        let first = ManualFlow<String>(), second = ManualFlow<String>()
        let subscriptions = AtomicCounter()
        let early = FlowRecorder(first.flow.append(counting(second.flow, subscriptions)))
        early.cancel()
        first.finish()
        #expect(first.cancels.value == 1 && subscriptions.value == 0)

        let third = ManualFlow<String>(), fourth = ManualFlow<String>()
        let late = FlowRecorder(third.flow.append(fourth.flow))
        third.finish()
        late.cancel()
        fourth.send("x")
        #expect(late.events.isEmpty)
        #expect(third.cancels.value == 0 && fourth.cancels.value == 1)
    }

    @Test func appendValuesAndPrependAFlow() {
        #expect(FlowRecorder(marbleFlow("a|", failure: TestError()).append("b", "c")).events == marbles("abc|"))
        #expect(FlowRecorder(marbleFlow("c|", failure: TestError()).prepend(marbleFlow("ab|"))).events == marbles("abc|"))
        #expect(FlowRecorder(marbleFlow("c|", failure: TestError()).prepend(marbleFlow("a#", failure: TestError()))).events == marbles("a#", failure: TestError()))
    }

    @Test func valuesAndFlowsPickTheirOverloads() {
        let two = Flow<Int, Never>.just(2)
        #expect(FlowRecorder(two.prepend(1)).values == [1, 2])
        #expect(FlowRecorder(two.prepend(.just(1))).values == [1, 2])
        #expect(FlowRecorder(two.append(.just(3))).values == [2, 3])
        #expect(FlowRecorder(two.append(3, 4)).values == [2, 3, 4])
        // An Element member with a flow's name is taken as a value.
        let loading = Flow<Screen, Never>.just(.loading)
        #expect(FlowRecorder(loading.prepend(.empty)).values == [.empty, .loading])
        #expect(FlowRecorder(loading.append(.empty)).values == [.loading, .empty])
        #expect(FlowRecorder(loading.append(Flow.empty)).values == [.loading])
        // A flow of flows: a flow is a value.
        let flows = Flow<Flow<Int, Never>, Never>.just(two).prepend(.just(1))
        #expect(FlowRecorder(flows.concat()).values == [1, 2])
    }

    @Test func concatOfAListAndOfNothing() {
        #expect(FlowRecorder(Flow.concat([marbleFlow("a|"), marbleFlow("b|"), marbleFlow("c|", failure: TestError())])).events == marbles("abc|"))
        #expect(FlowRecorder(Flow.concat(marbleFlow("a|"), marbleFlow("b|", failure: TestError()))).events == marbles("ab|"))
        #expect(FlowRecorder(Flow<Int, Never>.concat([])).events == [.finished])
    }

    @Test func concatOfManySynchronousFlowsDoesNotDeepenTheStack() {
        let flows = (0..<10_000).map { Flow<Int, Never>.just($0) }
        let recorder = FlowRecorder(Flow.concat(flows))
        #expect(recorder.values == Array(0..<10_000))
        #expect(recorder.isCompleted)
    }

    @Test func concatQueuesAFinishFromInsideAValueHandler() {
        let first = ManualFlow<String>()
        let recorder = ReactingRecorder(first.flow.append(marbleFlow("bc|"))) { event in
            if event == .value("a") { first.finish() }
        }
        first.send("a")
        #expect(recorder.events == marbles("abc|"))
        #expect(recorder.overlaps.value == 0)
    }
}
