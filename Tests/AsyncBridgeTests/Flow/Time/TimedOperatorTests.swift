import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("Time-based operators: the shared machinery (re-entrancy, the timer task)", .timeLimit(.minutes(1)))
struct TimedOperatorTests {
    @Test func aSubscriberThatCancelsInsideItsHandlerGetsNothingMoreOfADueBatch() async {
        let clock = ManualClock()
        let received = Box<[Int]>([])
        let token = Box<CancellationToken?>(nil)
        let done = CompletionSpy<Void>()
        token.value = Flow<Int, Never>.sequence([1, 2, 3])
            .delay(for: .seconds(1), clock: clock)
            .subscribe(onValue: { value in
                received.value.append(value)
                token.value?.cancel()
                done.record(())
            }, onCompletion: { _ in received.value.append(-1) })
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        _ = await done.firstCall()
        #expect(received.value == [1])
        #expect(clock.sleeperCount == 0)
    }

    @Test func aSubscriberThatCancelsInsideItsHandlerGetsNoFinishFromThrottle() async {
        let clock = ManualClock()
        let source = ManualFlow<Int>()
        let received = Box<[Int]>([])
        let token = Box<CancellationToken?>(nil)
        let done = CompletionSpy<Void>()
        token.value = source.flow
            .throttle(for: .seconds(1), clock: clock, latest: true)
            .subscribe(onValue: { value in
                received.value.append(value)
                if value == 2 {
                    token.value?.cancel()
                    done.record(())
                }
            }, onCompletion: { _ in received.value.append(-1) })
        source.send(1)
        source.send(2)   // waits for the end of the second
        source.finish()  // waits behind it
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        _ = await done.firstCall()
        #expect(received.value == [1, 2])
        #expect(source.cancels.value == 0, "the source had finished")
    }

    @Test func aSubscriberThatSendsIntoTheUpstreamFromItsHandlerIsServedLater() async {
        let clock = ManualClock()
        let subject = LiveSubject<String, Never>()
        let recorder = FlowRecorder(subject.flow.delay(for: .seconds(1), clock: clock).handleEvents(onValue: { value in
            if value != "c" { subject.send(value == "a" ? "b" : "c") }   // re-entrant: delay is delivering
        }), clock: clock)
        subject.send("a")
        for count in 1...3 {
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(1))
            await recorder.waitForValues(count)
        }
        #expect(recorder.timeline(step: .seconds(1)) == "-abc")
    }

    @Test func theTimersTaskWaitsOffTheClockWhileNothingIsArmedAndWakesForTheNextDeadline() async {
        let clock = ManualClock()
        let source = ManualFlow<Int>()
        let recorder = FlowRecorder(source.flow.debounce(for: .seconds(1), clock: clock), clock: clock)
        source.send(1)
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        await recorder.waitForValues(1)
        clock.advance(by: .seconds(5))
        source.send(2)   // the task is waiting (or about to): this deadline wakes it
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        await recorder.waitForValues(2)
        #expect(recorder.instants.map(\.offset) == [.seconds(1), .seconds(7)])
    }

    @Test func completionEndsTheTimersTask() async {
        let clock = ManualClock()
        let source = ManualFlow<Int>()
        let recorder = FlowRecorder(source.flow.debounce(for: .seconds(1), clock: clock))
        source.send(1)
        await clock.waitForSleepers(1)
        source.finish()
        #expect(recorder.events == [.value(1), .finished])
        #expect(clock.sleeperCount == 0, "the sleep is cancelled when the flow ends")
    }

    /// A value and a finish sent while the timer's task delivers wait in the drain; the clock
    /// moves on before the drain gets to them. They keep the time they were sent at (2, due at
    /// 4), not the time they are handled (3, due at 5): what made a marble test that sends at one
    /// step and then moves the clock hang, now and then, under the thread sanitizer.
    @Test func anEventWaitingBehindADeliveryKeepsTheTimeItArrivedAt() async {
        let clock = ManualClock()
        let subject = LiveSubject<String, Never>()
        let delayed = subject.flow.delay(for: .seconds(2), clock: clock).handleEvents(onValue: { value in
            guard value == "a" else { return }
            subject.send("b")
            subject.finish()
            clock.advance(by: .seconds(1))
        })
        let recorder = FlowRecorder(delayed, clock: clock)
        subject.send("a")
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(2))
        await clock.waitForSleepers(1)  // asleep until b is due
        clock.advance(to: .init(offset: .seconds(4)))
        await recorder.waitForCompletion()
        // `a` shows at 3: the recorder gets it after `handleEvents` moved the clock.
        #expect(recorder.timeline(step: .seconds(1)) == "---a[b|]")
    }
}
