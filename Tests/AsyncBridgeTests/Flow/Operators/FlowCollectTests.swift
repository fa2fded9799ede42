import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("Flow.collect(_:)", .timeLimit(.minutes(1)))
struct FlowCollectTests {
    @Test func sendsFullArraysThenTheRestAtTheFinish() {
        let recorder = FlowRecorder(Flow<Int, Never>.sequence(1...5).collect(2))
        #expect(recorder.events == [.value([1, 2]), .value([3, 4]), .value([5]), .finished])
    }

    @Test func sendsNoEmptyArrayAtTheFinish() {
        #expect(FlowRecorder(Flow<Int, Never>.sequence(1...4).collect(2)).events == [.value([1, 2]), .value([3, 4]), .finished])
        #expect(FlowRecorder(Flow<Int, Never>.empty.collect(2)).events == [.finished])
    }

    @Test func eachArrayGoesAsSoonAsItIsFull() {
        let source = ManualFlow<Int>()
        let recorder = FlowRecorder(source.flow.collect(3))
        source.send(1)
        source.send(2)
        #expect(recorder.events.isEmpty)
        source.send(3)
        #expect(recorder.events == [.value([1, 2, 3])])
    }

    @Test func aFailureDropsTheUnfinishedArrayLikeCombine() {
        let source = ManualFlow<Int>()
        let recorder = FlowRecorder(source.flow.collect(2))
        source.send(1)
        source.send(2)
        source.send(3)
        source.fail()
        #expect(recorder.events == [.value([1, 2]), .failure(TestError())])
    }

    @Test func cancellingCancelsTheUpstreamOnceAndDropsTheUnfinishedArray() {
        let source = ManualFlow<Int>()
        let recorder = FlowRecorder(source.flow.collect(2))
        source.send(1)
        recorder.cancel()
        source.send(2)
        source.finish()
        #expect(source.cancels.value == 1)
        #expect(recorder.events.isEmpty)
    }

    @Test func aSubscriberThatStopsStopsASynchronousSource() {
        let recorder = FlowRecorder(Flow<Int, Never>.sequence(0...).collect(2).prefix(2))
        #expect(recorder.events == [.value([0, 1]), .value([2, 3]), .finished])
    }

    @Test func aSubscriberThatSendsIntoTheUpstreamFromItsHandlerIsServedInOrder() {
        let subject = LiveSubject<Int, Never>()
        let recorder = FlowRecorder(subject.flow.collect(2).handleEvents(onValue: { batch in
            if batch == [1, 2] { subject.send(3) }   // re-entrant: collect is delivering
        }))
        subject.send(1)
        subject.send(2)
        subject.send(4)
        #expect(recorder.events == [.value([1, 2]), .value([3, 4])])
    }

    @Test func releasesItsClosuresAfterCompletionAndAfterCancellation() async {
        let source = ManualFlow<Int>()
        let releasedAfterFinish = await trackedIsReleased { tracked in
            let recorder = FlowRecorder(source.flow.map { _ = tracked; return $0 }.collect(2))
            source.send(1)
            source.finish()
            #expect(recorder.events == [.value([1]), .finished])
        }
        #expect(releasedAfterFinish, "after completion")
        #expect(source.cancels.value == 0, "nothing is cancelled after completion")
        let releasedAfterCancel = await trackedIsReleased { tracked in
            let recorder = FlowRecorder(source.flow.map { _ = tracked; return $0 }.collect(2))
            source.send(1)
            recorder.cancel()
        }
        #expect(releasedAfterCancel, "after cancellation")
        #expect(source.cancels.value == 1)
    }
}
