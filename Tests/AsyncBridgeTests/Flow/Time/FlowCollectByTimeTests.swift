import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("Flow.collect(within:maxCount:)", .timeLimit(.minutes(1)))
struct FlowCollectByTimeTests {
    @Test func sendsAnArrayWhenItsTimeIsUpAndNoEmptyOneWhileNothingComes() async {
        let clock = ManualClock()
        let source = ManualFlow<String>()
        let recorder = FlowRecorder(source.flow.collect(within: .seconds(3), clock: clock), clock: clock)
        source.send("a")
        source.send("b")
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        source.send("c")
        clock.advance(by: .seconds(2))
        await recorder.waitForValues(1)
        clock.advance(by: .seconds(4))   // RxSwift would send [] at 6 s
        source.send("d")                 // at 7 s: opens the next array
        await clock.waitForSleepers(1)
        #expect(recorder.events == [.value(["a", "b", "c"])], "no empty array")
        clock.advance(by: .seconds(2))   // 9 s: an array on a grid from the subscription would go now
        await clock.waitForSleepers(1)
        #expect(recorder.values.count == 1, "the time span starts with the array's first value")
        clock.advance(by: .seconds(1))
        await recorder.waitForValues(2)
        #expect(recorder.events == [.value(["a", "b", "c"]), .value(["d"])])
        #expect(recorder.instants.map(\.offset) == [.seconds(3), .seconds(10)])
    }

    @Test func aFullArrayGoesAtOnceAndTheNextStartsItsOwnTimeLikeRxSwift() async {
        let clock = ManualClock()
        let source = ManualFlow<String>()
        let recorder = FlowRecorder(source.flow.collect(within: .seconds(3), maxCount: 2, clock: clock), clock: clock)
        source.send("a")
        source.send("b")
        #expect(recorder.events == [.value(["a", "b"])])
        clock.advance(by: .seconds(1))
        source.send("c")
        clock.advance(by: .seconds(2))   // 3 s: Combine's interval from the subscription would end here
        await clock.waitForSleepers(1)
        #expect(recorder.values.count == 1)
        clock.advance(by: .seconds(1))
        await recorder.waitForValues(2)
        #expect(recorder.events == [.value(["a", "b"]), .value(["c"])])
        #expect(recorder.instants.map(\.offset) == [.zero, .seconds(4)])
    }

    @Test func aValueAtTheInstantAnArraysTimeIsUpOpensTheNext() async {
        let clock = ManualClock()
        let source = ManualFlow<String>()
        let recorder = FlowRecorder(source.flow.collect(within: .seconds(3), clock: clock), clock: clock)
        source.send("a")
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(3))
        source.send("b")   // before or after the timer's task: the due array goes first either way
        await recorder.waitForValues(1)
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(3))
        await recorder.waitForValues(2)
        #expect(recorder.events == [.value(["a"]), .value(["b"])])
        #expect(recorder.instants.map(\.offset) == [.seconds(3), .seconds(6)])
    }

    @Test func theOpenArrayIsSentAtTheFinishAndTheTimerEnds() async {
        let clock = ManualClock()
        let source = ManualFlow<String>()
        let recorder = FlowRecorder(source.flow.collect(within: .seconds(3), clock: clock))
        source.send("a")
        source.send("b")
        await clock.waitForSleepers(1)
        source.finish()
        #expect(recorder.events == [.value(["a", "b"]), .finished])
        #expect(clock.sleeperCount == 0)
    }

    @Test func aFinishWithNoArrayOpenSendsNoEmptyArray() async {
        let clock = ManualClock()
        let source = ManualFlow<String>()
        let recorder = FlowRecorder(source.flow.collect(within: .seconds(3), maxCount: 1, clock: clock))
        source.send("a")
        source.finish()
        #expect(recorder.events == [.value(["a"]), .finished])
        #expect(FlowRecorder(Flow<Int, Never>.empty.collect(within: .seconds(1), clock: clock)).events == [.finished])
    }

    @Test func aFailurePassesAtOnceAndDropsTheOpenArray() async {
        let clock = ManualClock()
        let source = ManualFlow<String>()
        let recorder = FlowRecorder(source.flow.collect(within: .seconds(3), maxCount: 2, clock: clock))
        source.send("a")
        source.send("b")
        source.send("c")
        source.fail()
        #expect(recorder.events == [.value(["a", "b"]), .failure(TestError())])
        #expect(clock.sleeperCount == 0)
    }

    @Test func cancellingDropsTheOpenArrayEndsTheTimerAndCancelsTheUpstreamOnce() async {
        let clock = ManualClock()
        let source = ManualFlow<String>()
        let recorder = FlowRecorder(source.flow.collect(within: .seconds(1), clock: clock))
        source.send("a")
        await clock.waitForSleepers(1)
        recorder.cancel()
        recorder.cancel()
        #expect(clock.sleeperCount == 0)
        #expect(source.cancels.value == 1)
        clock.advance(by: .seconds(2))
        source.send("b")
        #expect(recorder.events.isEmpty)
    }

    @Test func aSubscriberThatStopsEndsTheTimerAndTheUpstream() async {
        let clock = ManualClock()
        let source = ManualFlow<String>()
        let recorder = FlowRecorder(source.flow.collect(within: .seconds(1), clock: clock).prefix(1))
        source.send("a")
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        await recorder.waitForCompletion()
        #expect(recorder.events == [.value(["a"]), .finished])
        #expect(source.cancels.value == 1)
        #expect(clock.sleeperCount == 0)
    }

    @Test func aSubscriberThatSendsIntoTheUpstreamFromItsHandlerIsServedLater() async {
        let clock = ManualClock()
        let subject = LiveSubject<String, Never>()
        let recorder = FlowRecorder(subject.flow.collect(within: .seconds(1), clock: clock).handleEvents(onValue: { batch in
            if batch == ["a"] { subject.send("b") }   // re-entrant: collect is delivering
        }), clock: clock)
        subject.send("a")
        await clock.tick(by: .seconds(1), until: 1...2, of: recorder)
        #expect(recorder.events == [.value(["a"]), .value(["b"])])
        #expect(recorder.instants.map(\.offset) == [.seconds(1), .seconds(2)])
    }

    @Test func releasesItsClosuresAfterTheFinishAndAfterCancellation() async {
        let clock = ManualClock()
        let source = ManualFlow<Int>()
        let releasedAfterFinish = await trackedIsReleased { tracked in
            let recorder = FlowRecorder(source.flow.map { _ = tracked; return $0 }.collect(within: .seconds(1), clock: clock))
            source.send(1)
            await clock.tick(by: .seconds(1), until: 1...1, of: recorder)
            source.finish()  // handled by the timer's task if it is still inside its delivery
            await recorder.waitForCompletion()
            #expect(recorder.events == [.value([1]), .finished])
        }
        #expect(releasedAfterFinish, "after the finish")
        #expect(source.cancels.value == 0)
        let releasedAfterCancel = await trackedIsReleased { tracked in
            let recorder = FlowRecorder(source.flow.map { _ = tracked; return $0 }.collect(within: .seconds(1), clock: clock))
            source.send(1)
            recorder.cancel()
        }
        #expect(releasedAfterCancel, "after cancellation, even before the timer's task has ended")
        #expect(source.cancels.value == 1)
    }
}
