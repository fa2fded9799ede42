import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("Flow.interval and Flow.timer", .timeLimit(.minutes(1)))
struct FlowIntervalTests {
    @Test func intervalTicksEveryPeriodCountingFromZero() async {
        let clock = ManualClock()
        let recorder = FlowRecorder(Flow.interval(.seconds(1), clock: clock), clock: clock)
        await clock.tick(by: .seconds(1), until: 1...3, of: recorder)
        #expect(recorder.values == [0, 1, 2])
        #expect(recorder.instants.map(\.offset) == [.seconds(1), .seconds(2), .seconds(3)])
    }

    @Test func periodsPassedAtOnceGiveOneTickAndTheScheduleGoesOn() async {
        let clock = ManualClock()
        let recorder = FlowRecorder(Flow<Int, Never>.interval(.seconds(1), clock: clock), clock: clock)
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(3_500))   // the ticks at 1, 2 and 3 s are due
        await recorder.waitForValues(1)
        await clock.waitForSleepers(1)
        #expect(recorder.values == [0], "one tick, not a burst of three")
        clock.advance(by: .milliseconds(500))
        await recorder.waitForValues(2)
        #expect(recorder.values == [0, 1])
        #expect(recorder.instants.map(\.offset) == [.milliseconds(3_500), .seconds(4)], "the next tick keeps to the schedule")
    }

    @Test func aSubscriberSlowerThanThePeriodSkipsTheTicksItMissed() async {
        let clock = ManualClock()
        let received = Box<[(Int, Duration)]>([])
        let token = Flow<Int, Never>.interval(.seconds(1), clock: clock).subscribe(onValue: { tick in
            received.mutate { $0.append((tick, clock.now.offset)) }
            if tick == 0 { clock.advance(by: .milliseconds(2_500)) }   // a handler that takes 2.5 periods
        }, onCompletion: { _ in })
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        await clock.waitForSleepers(1)   // asleep until the next tick once the handler has returned
        #expect(received.value.map(\.0) == [0], "the ticks at 2 and 3 s are not sent late")
        clock.advance(by: .milliseconds(500))
        await clock.waitForSleepers(1)
        #expect(received.value.map(\.0) == [0, 1])
        #expect(received.value.map(\.1) == [.seconds(1), .seconds(4)])
        token.cancel()
    }

    @Test func timerSendsZeroAfterTheDelayThenFinishesAndEndsItsTask() async {
        let clock = ManualClock()
        let recorder = FlowRecorder(Flow.timer(after: .seconds(2), clock: clock), clock: clock)
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        #expect(recorder.events.isEmpty)
        clock.advance(by: .seconds(1))
        await recorder.waitForCompletion()
        #expect(recorder.events == [.value(0), .finished])
        #expect(recorder.instants.map(\.offset) == [.seconds(2), .seconds(2)])
        #expect(clock.sleeperCount == 0)
    }

    @Test func timerWithAPeriodTicksFromTheDelayOn() async {
        let clock = ManualClock()
        let recorder = FlowRecorder(Flow.timer(after: .seconds(5), period: .seconds(1), clock: clock), clock: clock)
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(5))
        await recorder.waitForValues(1)
        await clock.tick(by: .seconds(1), until: 2...3, of: recorder)
        #expect(recorder.values == [0, 1, 2])
        #expect(recorder.instants.map(\.offset) == [.seconds(5), .seconds(6), .seconds(7)])
    }

    @Test func aDelayOfZeroSendsDuringSubscribeWithoutATask() {
        let clock = ManualClock()
        let recorder = FlowRecorder(Flow.timer(after: .zero, clock: clock))
        #expect(recorder.events == [.value(0), .finished])
        #expect(clock.sleeperCount == 0)
    }

    @Test func eachSubscriptionHasItsOwnSchedule() async {
        let clock = ManualClock()
        let ticks = Flow.interval(.seconds(2), clock: clock)
        let first = FlowRecorder(ticks, clock: clock)
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        let second = FlowRecorder(ticks, clock: clock)
        await clock.waitForSleepers(2)
        clock.advance(by: .seconds(1))
        await first.waitForValues(1)
        await clock.waitForSleepers(2)
        #expect(second.events.isEmpty)
        clock.advance(by: .seconds(1))
        await second.waitForValues(1)
        #expect(first.instants.map(\.offset) == [.seconds(2)])
        #expect(second.instants.map(\.offset) == [.seconds(3)])
        #expect(second.values == [0])
    }

    @Test func cancellingEndsTheTimerAndNothingComesAfter() async {
        let clock = ManualClock()
        let recorder = FlowRecorder(Flow.interval(.seconds(1), clock: clock))
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        await recorder.waitForValues(1)
        await clock.waitForSleepers(1)
        recorder.cancel()
        #expect(clock.sleeperCount == 0, "the sleep is cancelled with the subscription")
        clock.advance(by: .seconds(5))
        #expect(recorder.values == [0])
    }

    @Test func aSubscriberThatStopsEndsTheTimer() async {
        let clock = ManualClock()
        let recorder = FlowRecorder(Flow.interval(.seconds(1), clock: clock).prefix(2))
        await clock.tick(by: .seconds(1), until: 1...2, of: recorder)
        await recorder.waitForCompletion()  // the finish follows the value, from the timer's task
        #expect(recorder.events == [.value(0), .value(1), .finished])
        #expect(clock.sleeperCount == 0)
    }

    @Test func aSubscriberThatCancelsInsideItsHandlerGetsNoMoreTicks() async {
        let clock = ManualClock()
        let received = Box<[Int]>([])
        let token = Box<CancellationToken?>(nil)
        let done = CompletionSpy<Void>()
        token.value = Flow.interval(.seconds(1), clock: clock).subscribe(onValue: { tick in
            received.mutate { $0.append(tick) }
            token.value?.cancel()
            done.record(())
        }, onCompletion: { _ in })
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        _ = await done.firstCall()
        clock.advance(by: .seconds(3))
        #expect(received.value == [0])
        #expect(clock.sleeperCount == 0)
    }

    @Test func releasesTheSubscriberAfterTheFinishAndAfterCancellation() async {
        let clock = ManualClock()
        // After the finish: the timer's task sends it, and lets go of the subscriber as it leaves
        // the operator's drain.
        await waitForRelease { tracked in
            let recorder = FlowRecorder(Flow.timer(after: .seconds(1), clock: clock).map { _ = tracked; return $0 })
            await clock.tick(by: .seconds(1), until: 1...1, of: recorder)
            await recorder.waitForCompletion()
            #expect(recorder.events == [.value(0), .finished])
        }
        let releasedAfterCancel = await trackedIsReleased { tracked in
            let recorder = FlowRecorder(Flow.interval(.seconds(1), clock: clock).map { _ = tracked; return $0 })
            await clock.waitForSleepers(1)
            recorder.cancel()
        }
        #expect(releasedAfterCancel, "after cancellation, even before the timer's task has ended")
    }
}
