import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("Flow.debug", .timeLimit(.minutes(1)))
struct FlowDebugTests {
    @Test func writesSubscriptionValuesAndFinishWithTheLabelAndPassesTheEventsOn() {
        let lines = Box<[String]>([])
        let recorder = FlowRecorder(marbleFlow("ab|", failure: TestError()).debug("letters") { line in lines.mutate { $0.append(line) } })
        #expect(recorder.events == marbles("ab|"))
        #expect(lines.value == ["letters: subscribed", "letters: value(a)", "letters: value(b)", "letters: finished"])
    }

    @Test func writesTheFailureAndNoPrefixWithoutALabel() {
        let lines = Box<[String]>([])
        let recorder = FlowRecorder(marbleFlow("a#", failure: TestError(code: 4)).debug { line in lines.mutate { $0.append(line) } })
        #expect(recorder.events == marbles("a#", failure: TestError(code: 4)))
        #expect(lines.value == ["subscribed", "value(a)", "failure(TestError(code: 4))"])
    }

    @Test func writesACancellationOnceAndNothingAfterIt() {
        let lines = Box<[String]>([])
        let source = ManualFlow<Int>()
        let recorder = FlowRecorder(source.flow.debug("n") { line in lines.mutate { $0.append(line) } })
        source.send(1)
        recorder.cancel()
        recorder.cancel()
        source.send(2)
        source.finish()
        #expect(recorder.events == [.value(1)])
        #expect(lines.value == ["n: subscribed", "n: value(1)", "n: cancelled"])
        #expect(source.cancels.value == 1)
    }

    @Test func eachSubscriptionWritesItsOwnLinesAndAFinishIsNotACancellation() {
        let lines = Box<[String]>([])
        let flow = Flow<Int, Never>.just(1).debug("one") { line in lines.mutate { $0.append(line) } }
        let first = FlowRecorder(flow)
        let second = FlowRecorder(flow)
        first.cancel()
        second.cancel()
        #expect(lines.value == ["one: subscribed", "one: value(1)", "one: finished", "one: subscribed", "one: value(1)", "one: finished"])
    }

    @Test(arguments: [false, true])
    func releasesItsOutputAfterTheEnd(cancelling: Bool) {
        let source = ManualFlow<Int>()
        expectReleased("debug after \(cancelling ? "cancellation" : "completion")") { tracked in
            let recorder = FlowRecorder(source.flow.debug("x") { _ in _ = tracked })
            source.send(1)
            if cancelling { recorder.cancel() } else { source.finish() }
        }
        #expect(source.cancels.value == (cancelling ? 1 : 0))
    }
}
