import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("Flow.timeout", .timeLimit(.minutes(1)))
struct FlowTimeoutTests {
    @Test func valuesWithinTheLimitPassAndEachValueRestartsIt() async {
        let clock = ManualClock()
        let output = await clock.play("a-b-c-|", failure: TestError(), expecting: "a-b-c-|") {
            $0.timeout(.seconds(3), clock: clock, switchingTo: .fail(TestError(code: 408)))
        }
        #expect(output == "a-b-c-|")
    }

    @Test func theLimitIsPerElementNotForTheWholeFlow() async {
        let clock = ManualClock()
        // 3 steps allowed between events: c comes 3 steps after b, the deadline itself.
        let output = await clock.play("a-b--c|", failure: TestError(), expecting: "a-b--#") {
            $0.timeout(.seconds(3), clock: clock, switchingTo: .fail(TestError(code: 408)))
        }
        #expect(output == "a-b--#")
    }

    @Test func theClockStartsAtSubscription() async {
        let clock = ManualClock()
        let output = await clock.play("--a|", failure: TestError(), expecting: "-#") {
            $0.timeout(.seconds(1), clock: clock, switchingTo: .fail(TestError(code: 408)))
        }
        #expect(output == "-#")
    }

    @Test func silenceFailsWithTimeoutErrorAndCancelsTheUpstream() async throws {
        let clock = ManualClock()
        let source = ManualFlow<Int>()
        let recorder = FlowRecorder(source.flow.timeout(.seconds(5), clock: clock))
        source.send(1)
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(4_999))
        #expect(!recorder.isCompleted)
        clock.advance(by: .milliseconds(1))
        await recorder.waitForCompletion()
        #expect(recorder.values == [1])
        let failure = try #require(recorder.events.last)
        guard case .failure(let error) = failure else { Issue.record("expected a failure, got \(failure)"); return }
        #expect(error is TimeoutError)
        #expect(source.cancels.value == 1)
        #expect(clock.sleeperCount == 0)
    }

    @Test func theUntypedTimeoutPassesTheUpstreamsFailure() async throws {
        let clock = ManualClock()
        let source = ManualFlow<Int>()
        let recorder = FlowRecorder(source.flow.timeout(.seconds(5), clock: clock))
        source.fail(TestError(code: 3))
        let failure = try #require(recorder.events.last)
        guard case .failure(let error) = failure else { Issue.record("expected a failure, got \(failure)"); return }
        #expect(error as? TestError == TestError(code: 3))
        #expect(source.cancels.value == 0)
    }

    @Test func switchingToEmptyFinishesLikeCombine() async {
        let clock = ManualClock()
        let output = await clock.play("a----b|", failure: TestError(), expecting: "a--|") {
            $0.timeout(.seconds(3), clock: clock, switchingTo: .empty)
        }
        #expect(output == "a--|")
    }

    @Test func switchingToAnotherFlowContinuesWithIt() async {
        let clock = ManualClock()
        let output = await clock.play("a----b|", failure: TestError(), expecting: "a--[z|]") {
            $0.timeout(.seconds(3), clock: clock, switchingTo: .just("z"))
        }
        #expect(output == "a--[z|]")
    }

    @Test func theTypedVariantPassesTheUpstreamsFailureTyped() {
        let clock = ManualClock()
        let source = ManualFlow<Int>()
        let recorder = FlowRecorder(source.flow.timeout(.seconds(1), clock: clock, switchingTo: .empty))
        source.send(1)
        source.fail(TestError(code: 3))
        #expect(recorder.events == [.value(1), .failure(TestError(code: 3))])
    }

    @Test func cancellingEndsTheTimerAndNothingComesAfter() async {
        let clock = ManualClock()
        let source = ManualFlow<Int>()
        let recorder = FlowRecorder(source.flow.timeout(.seconds(1), clock: clock))
        await clock.waitForSleepers(1)
        recorder.cancel()
        #expect(clock.sleeperCount == 0, "the timer's sleep is cancelled with the subscription")
        #expect(source.cancels.value == 1)
        clock.advance(by: .seconds(2))
        source.send(1)
        #expect(recorder.events.isEmpty)
    }

    @Test func aSubscriberThatStopsEndsTheTimer() async {
        let clock = ManualClock()
        let source = ManualFlow<Int>()
        let recorder = FlowRecorder(source.flow.timeout(.seconds(1), clock: clock, switchingTo: .empty).prefix(1))
        await clock.waitForSleepers(1)
        source.send(1)
        #expect(recorder.events == [.value(1), .finished])
        #expect(source.cancels.value == 1)
        #expect(clock.sleeperCount == 0)
    }

    @Test func valuesRacingTheDeadlineEndWithOneTimeoutAtMost() async {
        for _ in 0..<1_000 {
            let clock = ManualClock()
            let source = ManualFlow<Int>()
            let recorder = FlowRecorder(source.flow.timeout(.seconds(1), clock: clock, switchingTo: .fail(TestError(code: 408))))
            await clock.waitForSleepers(1)
            async let sent: Void = source.send(1)
            clock.advance(by: .seconds(1))
            await sent
            await recorder.waitForCompletion()
            let events = recorder.events
            #expect(events == [.failure(TestError(code: 408))] || events == [.value(1), .failure(TestError(code: 408))])
        }
    }
}
