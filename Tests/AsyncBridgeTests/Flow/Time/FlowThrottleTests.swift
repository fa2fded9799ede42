import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("Flow.throttle", .timeLimit(.minutes(1)))
struct FlowThrottleTests {
    @Test func latestSendsTheFirstValueAtOnceAndTheLatestAtTheEndOfEachWait() async {
        let clock = ManualClock()
        let output = await clock.play("abcd---e|", failure: Never?.none, expecting: "a-b-d--e|") {
            $0.throttle(for: .seconds(2), clock: clock, latest: true)
        }
        #expect(output == "a-b-d--e|")
    }

    @Test func notLatestDropsWhatComesDuringTheWaitLikeRxSwift() async {
        let clock = ManualClock()
        // Combine would send `b` at step 2 (the first value of the wait, at its end).
        let output = await clock.play("abcd---e|", failure: Never?.none, expecting: "a-c----e|") {
            $0.throttle(for: .seconds(2), clock: clock, latest: false)
        }
        #expect(output == "a-c----e|")
    }

    @Test func theFinishWaitsForThePendingValue() async {
        let clock = ManualClock()
        let output = await clock.play("ab|", failure: Never?.none, expecting: "a--[b|]") {
            $0.throttle(for: .seconds(3), clock: clock, latest: true)
        }
        #expect(output == "a--[b|]")
        let other = ManualClock()
        let without = await other.play("a-|", failure: Never?.none, expecting: "a-|") {
            $0.throttle(for: .seconds(3), clock: other, latest: true)
        }
        #expect(without == "a-|", "nothing pending: the finish passes at once")
    }

    @Test func aFailurePassesAtOnceAndDropsThePendingValue() async {
        let clock = ManualClock()
        let output = await clock.play("ab#", failure: TestError(), expecting: "a-#") {
            $0.throttle(for: .seconds(3), clock: clock, latest: true)
        }
        #expect(output == "a-#")
    }

    @Test func valuesComeOutAtLeastTheDurationApart() async {
        let clock = ManualClock()
        let output = await clock.play("abcdefgh|", failure: Never?.none, expecting: "a--c--f--[h|]") {
            $0.throttle(for: .seconds(3), clock: clock, latest: true)
        }
        #expect(output == "a--c--f--[h|]")
    }

    @Test func cancellingDropsThePendingValueAndEndsTheTimer() async {
        let clock = ManualClock()
        let source = ManualFlow<Int>()
        let recorder = FlowRecorder(source.flow.throttle(for: .seconds(1), clock: clock, latest: true))
        source.send(1)
        source.send(2)
        await clock.waitForSleepers(1)
        recorder.cancel()
        #expect(clock.sleeperCount == 0)
        #expect(source.cancels.value == 1)
        clock.advance(by: .seconds(2))
        #expect(recorder.events == [.value(1)])
    }
}
