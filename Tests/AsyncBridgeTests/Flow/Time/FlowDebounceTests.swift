import Dispatch
import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("Flow.debounce", .timeLimit(.minutes(1)))
struct FlowDebounceTests {
    @Test func sendsTheLastValueOfEachBurstAfterTheQuietTime() async {
        let clock = ManualClock()
        let output = await clock.play("abc----de---f|", failure: Never?.none, expecting: "----c-----e--[f|]") {
            $0.debounce(for: .seconds(2), clock: clock)
        }
        #expect(output == "----c-----e--[f|]")
    }

    @Test func aPendingValueIsSentAtTheFinishLikeRxSwift() async {
        let clock = ManualClock()
        let output = await clock.play("a|", failure: Never?.none, expecting: "-[a|]") {
            $0.debounce(for: .seconds(5), clock: clock)
        }
        #expect(output == "-[a|]")
    }

    @Test func aFailurePassesAtOnceAndDropsThePendingValue() async {
        let clock = ManualClock()
        let output = await clock.play("ab#", failure: TestError(), expecting: "--#") {
            $0.debounce(for: .seconds(2), clock: clock)
        }
        #expect(output == "--#")
    }

    @Test func aValueAtTheVeryInstantTheWaitEndsComesAfterThePendingOne() async {
        let clock = ManualClock()
        let output = await clock.play("a-b-c---|", failure: Never?.none, expecting: "--a-b-c-|") {
            $0.debounce(for: .seconds(2), clock: clock)
        }
        #expect(output == "--a-b-c-|")
    }

    @Test func reArmingMovesTheDeadlineOfOneSleepingTask() async {
        let clock = ManualClock()
        let source = ManualFlow<Int>()
        let recorder = FlowRecorder(source.flow.debounce(for: .seconds(1), clock: clock))
        source.send(0)
        await clock.waitForSleepers(1)
        for value in 1..<100 {
            clock.advance(by: .milliseconds(5))
            source.send(value)
        }
        #expect(clock.sleeperCount == 1, "one task, still asleep until the first deadline")
        clock.advance(by: .milliseconds(600))   // past the first deadline: it sleeps on
        await clock.waitForSleepers(1)
        #expect(recorder.events.isEmpty)
        clock.advance(by: .milliseconds(1_000))
        await recorder.waitForValues(1)
        #expect(recorder.values == [99])
    }

    @Test func cancellingDropsThePendingValueAndEndsTheTimer() async {
        let clock = ManualClock()
        let source = ManualFlow<Int>()
        let recorder = FlowRecorder(source.flow.debounce(for: .seconds(1), clock: clock))
        source.send(1)
        await clock.waitForSleepers(1)
        recorder.cancel()
        #expect(clock.sleeperCount == 0)
        #expect(source.cancels.value == 1)
        clock.advance(by: .seconds(2))
        #expect(recorder.events.isEmpty)
    }

    @Test func valuesFromAnotherThreadRacingTheTimerAreSerialisedAndEndWithTheLast() async {
        for _ in 0..<100 {
            let clock = ManualClock()
            let source = ManualFlow<Int>()
            let recorder = FlowRecorder(source.flow.debounce(for: .milliseconds(2), clock: clock))
            let sent = CompletionSpy<Void>()
            DispatchQueue(label: "sender").async {
                for value in 0..<200 { source.send(value) }
                source.finish()
                sent.record(())
            }
            while sent.callCount == 0 {
                clock.advance(by: .milliseconds(1))
                await Task.yield()
            }
            await recorder.waitForCompletion()
            let values = recorder.values
            #expect(values.last == 199)
            #expect(values == values.sorted() && Set(values).count == values.count)
        }
    }
}
