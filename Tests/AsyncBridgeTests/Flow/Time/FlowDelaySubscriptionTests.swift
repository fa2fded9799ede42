import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("Flow.delaySubscription", .timeLimit(.minutes(1)))
struct FlowDelaySubscriptionTests {
    /// `source.flow`, counting its subscriptions and telling `subscribed` of each once `source`
    /// holds the subscriber and a cancellation reaches it (told earlier, a test could cancel
    /// while the timer's task had yet to wire it, and find `source` not cancelled): a test may
    /// then send or cancel. A value reaches the recorder before `send` returns; a completion
    /// goes through the operator's drain, which the timer's task may still hold (it subscribed
    /// inside it), so a test awaits the recorder's completion.
    func counted(_ source: ManualFlow<Int>, _ count: AtomicCounter, _ subscribed: CompletionSpy<Void>) -> Flow<Int, TestError> {
        Flow.create { emitter in
            count.increment()
            let token = source.flow.subscribe { event in
                switch event {
                case .value(let value): emitter.send(value)
                case .finished: emitter.finish()
                case .failure(let error): emitter.fail(error)
                }
            }
            emitter.onCancel { token.cancel() }
            subscribed.record(())
        }
    }

    /// A recorder of `source.flow` (through `transform`) behind a one-second delay, once the
    /// delay has passed and `source` is subscribed.
    func subscribedAfterOneSecond(
        _ source: ManualFlow<Int>,
        clock: ManualClock,
        _ transform: (Flow<Int, TestError>) -> Flow<Int, TestError> = { $0 }
    ) async -> FlowRecorder<Int, TestError> {
        let subscribed = CompletionSpy<Void>()
        let recorder = FlowRecorder(transform(counted(source, AtomicCounter(), subscribed)).delaySubscription(for: .seconds(1), clock: clock))
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        _ = await subscribed.firstCall()
        return recorder
    }

    @Test func subscribesOnlyOnceTheDelayHasPassedThenPassesEverythingOn() async {
        let clock = ManualClock()
        let source = ManualFlow<Int>()
        let subscriptions = AtomicCounter()
        let subscribed = CompletionSpy<Void>()
        let recorder = FlowRecorder(counted(source, subscriptions, subscribed).delaySubscription(for: .seconds(2), clock: clock), clock: clock)
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        #expect(subscriptions.value == 0)
        clock.advance(by: .seconds(1))
        _ = await subscribed.firstCall()
        source.send(1)
        source.send(2)
        source.finish()
        await recorder.waitForCompletion()
        #expect(recorder.events == [.value(1), .value(2), .finished])
        #expect(recorder.instants.map(\.offset) == [.seconds(2), .seconds(2), .seconds(2)])
        #expect(subscriptions.value == 1)
        #expect(source.cancels.value == 0, "nothing is cancelled after the finish")
    }

    @Test func aFailurePassesUnchanged() async {
        let clock = ManualClock()
        let source = ManualFlow<Int>()
        let recorder = await subscribedAfterOneSecond(source, clock: clock)
        source.send(1)
        source.fail(TestError(code: 7))
        await recorder.waitForCompletion()
        #expect(recorder.events == [.value(1), .failure(TestError(code: 7))])
    }

    @Test func aDelayOfZeroSubscribesDuringSubscribe() {
        let clock = ManualClock()
        let recorder = FlowRecorder(Flow<Int, Never>.sequence([1, 2]).delaySubscription(for: .zero, clock: clock))
        #expect(recorder.events == [.value(1), .value(2), .finished])
        #expect(clock.sleeperCount == 0)
    }

    @Test func cancellingBeforeTheDelaySubscribesNothingAndEndsTheTimer() async {
        let clock = ManualClock()
        let source = ManualFlow<Int>()
        let subscriptions = AtomicCounter()
        let recorder = FlowRecorder(counted(source, subscriptions, CompletionSpy()).delaySubscription(for: .seconds(1), clock: clock))
        await clock.waitForSleepers(1)
        recorder.cancel()
        #expect(clock.sleeperCount == 0)
        clock.advance(by: .seconds(5))
        #expect(subscriptions.value == 0)
        #expect(source.cancels.value == 0)
        #expect(recorder.events.isEmpty)
    }

    @Test func cancellingAfterTheSubscriptionCancelsTheUpstreamOnce() async {
        let clock = ManualClock()
        let source = ManualFlow<Int>()
        let recorder = await subscribedAfterOneSecond(source, clock: clock)
        source.send(1)
        recorder.cancel()
        recorder.cancel()
        source.send(2)
        #expect(source.cancels.value == 1)
        #expect(recorder.events == [.value(1)])
    }

    @Test func aSynchronousSourceStopsWhenTheSubscriberWantsNoMore() async {
        let clock = ManualClock()
        let recorder = FlowRecorder(Flow<Int, Never>.sequence(0...).delaySubscription(for: .seconds(1), clock: clock).prefix(3))
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        await recorder.waitForCompletion()
        #expect(recorder.events == [.value(0), .value(1), .value(2), .finished])
    }

    @Test func releasesItsClosuresAfterTheFinishAndAfterCancellation() async {
        let clock = ManualClock()
        let source = ManualFlow<Int>()
        // After the finish: the operator holds its upstream until the completion has gone
        // through its drain, which the timer's task may be the one to deliver (see `counted`).
        await waitForRelease { tracked in
            let recorder = await subscribedAfterOneSecond(source, clock: clock) { $0.map { _ = tracked; return $0 } }
            source.send(1)
            source.finish()
            await recorder.waitForCompletion()
            #expect(recorder.events == [.value(1), .finished])
        }
        let releasedAfterCancel = await trackedIsReleased { tracked in
            let recorder = FlowRecorder(source.flow.map { _ = tracked; return $0 }.delaySubscription(for: .seconds(1), clock: clock))
            await clock.waitForSleepers(1)
            recorder.cancel()
        }
        #expect(releasedAfterCancel, "after cancellation before the delay, even before the timer's task has ended")
    }
}
