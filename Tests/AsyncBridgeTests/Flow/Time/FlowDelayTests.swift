import Dispatch
import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("Flow.delay", .timeLimit(.minutes(1)))
struct FlowDelayTests {
    @Test func shiftsValuesAndTheFinishKeepingTheirSpacing() async {
        let clock = ManualClock()
        let output = await clock.play("ab-c--|", failure: Never?.none, expecting: "--ab-c--|") {
            $0.delay(for: .seconds(2), clock: clock)
        }
        #expect(output == "--ab-c--|")
    }

    @Test func valuesOfTheSameInstantStayTogetherAndInOrder() async {
        let clock = ManualClock()
        let output = await clock.play("[abc]|", failure: Never?.none, expecting: "--[abc]|") {
            $0.delay(for: .seconds(2), clock: clock)
        }
        #expect(output == "--[abc]|")
    }

    @Test func aFailurePassesAtOnceAndDropsTheWaitingValuesLikeRxSwift() async {
        let clock = ManualClock()
        let output = await clock.play("ab#", failure: TestError(), expecting: "--#") {
            $0.delay(for: .seconds(3), clock: clock)
        }
        #expect(output == "--#")
    }

    @Test func whatIsDueGoesOutBeforeAFailureOfTheSameInstant() async {
        let clock = ManualClock()
        let output = await clock.play("ab#", failure: TestError(), expecting: "--[a#]") {
            $0.delay(for: .seconds(2), clock: clock)
        }
        #expect(output == "--[a#]")
    }

    @Test func oneTimerTaskSleepsForAllTheWaitingValues() async {
        let clock = ManualClock()
        let source = ManualFlow<Int>()
        let recorder = FlowRecorder(source.flow.delay(for: .seconds(1), clock: clock))
        for value in 0..<100 {
            source.send(value)
            clock.advance(by: .milliseconds(5))
        }
        await clock.waitForSleepers(1)
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(1))
        await recorder.waitForValues(100)
        #expect(recorder.values == Array(0..<100))
    }

    @Test func cancellingDropsTheWaitingValuesAndEndsTheTimer() async {
        let clock = ManualClock()
        let source = ManualFlow<Int>()
        let recorder = FlowRecorder(source.flow.delay(for: .seconds(1), clock: clock))
        source.send(1)
        await clock.waitForSleepers(1)
        recorder.cancel()
        #expect(clock.sleeperCount == 0)
        #expect(source.cancels.value == 1)
        clock.advance(by: .seconds(2))
        source.send(2)
        #expect(recorder.events.isEmpty)
    }

    @Test func aSubscriberThatStopsEndsTheTimerAndTheUpstream() async {
        let clock = ManualClock()
        let source = ManualFlow<Int>()
        let recorder = FlowRecorder(source.flow.delay(for: .seconds(1), clock: clock).prefix(1))
        source.send(1)
        source.send(2)
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        await recorder.waitForCompletion()
        #expect(recorder.events == [.value(1), .finished])
        #expect(source.cancels.value == 1)
        #expect(clock.sleeperCount == 0)
    }

    @Test func releasesItsClosuresAfterTheDelayedFinishAndAfterCancellation() async {
        let clock = ManualClock()
        weak var captured: Tracked?
        let source = ManualFlow<Int>()
        do {
            let tracked = Tracked()
            captured = tracked
            let recorder = FlowRecorder(source.flow.map { _ = tracked; return $0 }.delay(for: .seconds(1), clock: clock))
            source.send(1)
            source.finish()
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(1))
            await recorder.waitForCompletion()
        }
        #expect(captured == nil, "after the finish")
        do {
            let tracked = Tracked()
            captured = tracked
            let recorder = FlowRecorder(source.flow.map { _ = tracked; return $0 }.delay(for: .seconds(1), clock: clock))
            source.send(1)
            recorder.cancel()
        }
        #expect(captured == nil, "after cancellation, even before the timer's task has ended")
    }

    @Test func valuesFromAnotherThreadRacingTheTimerComeOutInOrder() async {
        let clock = ManualClock()
        let source = ManualFlow<Int>()
        let recorder = FlowRecorder(source.flow.delay(for: .milliseconds(10), clock: clock))
        let sent = CompletionSpy<Void>()
        DispatchQueue(label: "sender").async {
            for value in 0..<2_000 { source.send(value) }
            source.finish()
            sent.record(())
        }
        while sent.callCount == 0 {
            clock.advance(by: .milliseconds(1))
            await Task.yield()
        }
        clock.advance(by: .seconds(1))
        await recorder.waitForCompletion()
        #expect(recorder.values == Array(0..<2_000))
        #expect(recorder.events.last == .finished)
    }
}
