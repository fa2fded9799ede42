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
}
