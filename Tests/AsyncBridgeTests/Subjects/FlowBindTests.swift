import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("Flow.bind(to:)", .timeLimit(.minutes(1)))
struct FlowBindTests {
    @Test func aNeverFailingFlowBindsValuesIntoAnyRelay() {
        let publish = LiveRelay<String>()
        let behavior = LatestValueRelay(value: "-")
        let replay = ReplayingRelay<String>(bufferSize: 2)
        let published = FlowRecorder(publish.flow)
        _ = marbleFlow("ab|").bind(to: publish)
        _ = marbleFlow("ab|").bind(to: behavior)
        _ = marbleFlow("abc|").bind(to: replay)
        publish.accept("c")
        #expect(published.events == marbles("abc"), "the source's finish does not end the relay")
        #expect(behavior.value == "b")
        #expect(FlowRecorder(replay.flow).events == marbles("bc"))
    }

    @Test func aFlowBindsValuesAndItsFinishIntoASubject() {
        let subject = LiveSubject<String, Never>()
        let recorder = FlowRecorder(subject.flow)
        _ = marbleFlow("ab|").bind(to: subject)
        subject.send("c")  // ignored: the subject finished with its source
        #expect(recorder.events == marbles("ab|"))
    }

    @Test func aFlowBindsItsFailureIntoASubject() {
        let subject = LatestValueSubject<String, TestError>(value: "x")
        let recorder = FlowRecorder(subject.flow)
        _ = marbleFlow("a#", failure: TestError(code: 9)).bind(to: subject)
        #expect(recorder.events == marbles("xa#", failure: TestError(code: 9)))
    }

    @Test func cancellingTheTokenUnbindsWithoutCompletingTheTarget() {
        let source = LiveSubject<Int, Never>()
        let target = ReplayingSubject<Int, Never>(bufferSize: 10)
        let recorder = FlowRecorder(target.flow)
        let token = source.flow.bind(to: target)
        source.send(1)
        token.cancel()
        source.send(2)
        source.finish()
        #expect(recorder.events == [.value(1)])
    }

    @Test func relaysChainIntoRelays() {
        let upstream = LiveRelay<Int>()
        let downstream = LatestValueRelay(value: 0)
        let bag = CancellationBag()
        upstream.flow.map { $0 * 2 }.bind(to: downstream).store(in: bag)
        upstream.accept(21)
        #expect(downstream.value == 42)
        bag.cancelAll()
        upstream.accept(1)
        #expect(downstream.value == 42)
    }
}
