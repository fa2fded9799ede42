import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("Flow: materialize, dematerialize", .timeLimit(.minutes(1)))
struct FlowMaterializeTests {
    typealias Event = FlowEvent<String, TestError>

    @Test func materializeSendsEachEventAsAValueThenFinishes() {
        let source = ManualFlow<String>()
        let recorder: FlowRecorder<Event, Never> = FlowRecorder(source.flow.materialize())
        source.send("a")
        #expect(recorder.events == [.value(.value("a"))])
        source.finish()
        #expect(recorder.events == [.value(.value("a")), .value(.finished), .finished])
        #expect(source.cancels.value == 0)
        let failed = FlowRecorder(marbleFlow("a#", failure: TestError()).materialize())
        #expect(failed.events == [.value(.value("a")), .value(.failure(TestError())), .finished])
    }

    @Test func materializeCancelsTheSourceAndDeliversNothingAfter() {
        let source = ManualFlow<String>()
        let recorder = FlowRecorder(source.flow.materialize())
        source.send("a")
        recorder.cancel()
        #expect(source.cancels.value == 1)
        source.send("b"); source.fail()
        #expect(recorder.events == [.value(.value("a"))])
    }

    @Test func aSubscriberThatCancelsOnTheCompletionEventSeesNoFinish() {
        let source = ManualFlow<String>()
        #expect(eventsCancellingOnFirstValue(source.flow.materialize()) { source.fail() } == [.value(.failure(TestError()))])
    }

    @Test func dematerializeUndoesMaterialize() {
        for diagram in ["ab|", "ab#", "|"] {
            let flow = marbleFlow(diagram, failure: TestError())
            #expect(FlowRecorder(flow.materialize().dematerialize()).events == marbles(diagram, failure: TestError()))
        }
        let never: Flow<FlowEvent<Int, Never>, Never> = .sequence([.value(1), .finished])
        #expect(FlowRecorder(never.dematerialize()).events == [.value(1), .finished])
    }

    @Test(arguments: [Event.finished, .failure(TestError(code: 7))])
    func dematerializeEndsAtTheFirstCompletionEventAndCancelsTheSourceOnce(_ end: Event) {
        let source = ManualFlow<Event>()
        let recorder = FlowRecorder(source.flow.replaceError(with: .finished).dematerialize())
        source.send(.value("a"))
        #expect(recorder.events == [.value("a")])
        source.send(end)
        let expected: [Event] = [.value("a"), end]
        #expect(recorder.events == expected)
        #expect(source.cancels.value == 1)
        source.send(.value("b")); source.finish()
        #expect(recorder.events == expected)
        #expect(source.cancels.value == 1)
    }

    @Test func dematerializeEndsAsItsSourceDoes() {
        let finishing = ManualFlow<Event>()
        let finished = FlowRecorder(finishing.flow.replaceError(with: .finished).dematerialize())
        finishing.send(.value("a")); finishing.finish()
        #expect(finished.events == marbles("a|"))
        #expect(finishing.cancels.value == 0)
        let failing = ManualFlow<Event>()
        let failed = FlowRecorder(failing.flow.dematerialize())   // the events' failure is the source's
        failing.send(.value("a")); failing.fail(TestError(code: 8))
        #expect(failed.events == marbles("a#", failure: TestError(code: 8)))
        #expect(failing.cancels.value == 0)
    }

    @Test func cancellingDematerializeCancelsTheSource() {
        let source = ManualFlow<Event>()
        let recorder = FlowRecorder(source.flow.dematerialize())
        source.send(.value("a"))
        recorder.cancel()
        source.send(.value("b")); source.send(.finished)
        #expect(recorder.events == marbles("a"))
        #expect(source.cancels.value == 1)
    }
}
