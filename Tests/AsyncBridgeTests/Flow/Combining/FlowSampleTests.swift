import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("Flow: sample", .timeLimit(.minutes(1)))
struct FlowSampleTests {
    /// RxSwift's `sample` without a default value: nothing new, nothing sent.
    @Test func sendsTheLatestValueAtEachTriggerAndNeverRepeatsOne() {
        let source = ManualFlow<String>(), trigger = ManualFlow<Int>()
        let recorder = FlowRecorder(source.flow.sample(trigger.flow))
        trigger.send(0)
        source.send("a"); source.send("b")
        trigger.send(1)
        trigger.send(2)
        source.send("c")
        trigger.send(3)
        #expect(recorder.events == marbles("bc"))
    }

    /// As RxSwift: a value not sampled yet waits for the next trigger value.
    @Test func aFinishedSourceWithAValueNotSampledFinishesAtTheNextTrigger() {
        let source = ManualFlow<String>(), trigger = ManualFlow<Int>()
        let recorder = FlowRecorder(source.flow.sample(trigger.flow))
        source.send("a"); source.finish()
        #expect(recorder.events.isEmpty)
        trigger.send(0)
        #expect(recorder.events == marbles("a|"))
        #expect(trigger.cancels.value == 1 && source.cancels.value == 0)
    }

    /// Unlike RxSwift, which waits for the next trigger value to finish.
    @Test func aFinishedSourceWithNothingToSampleFinishesAtOnce() {
        let source = ManualFlow<String>(), trigger = ManualFlow<Int>()
        let recorder = FlowRecorder(source.flow.sample(trigger.flow))
        source.send("a")
        trigger.send(0)
        source.finish()
        #expect(recorder.events == marbles("a|"))
        #expect(trigger.cancels.value == 1)
        #expect(FlowRecorder(marbleFlow("|").sample(trigger.flow)).events == marbles("|"))
    }

    /// The trigger's finish samples a last time (as RxSwift), then finishes (RxSwift goes on).
    @Test func aFinishedTriggerSamplesOnceMoreAndFinishes() {
        let source = ManualFlow<String>(), trigger = ManualFlow<Int>()
        let recorder = FlowRecorder(source.flow.sample(trigger.flow))
        source.send("a")
        trigger.finish()
        #expect(recorder.events == marbles("a|"))
        #expect(source.cancels.value == 1)

        let quiet = ManualFlow<String>(), quietTrigger = ManualFlow<Int>()
        let nothingNew = FlowRecorder(quiet.flow.sample(quietTrigger.flow))
        quietTrigger.finish()
        #expect(nothingNew.events == marbles("|"))
        #expect(quiet.cancels.value == 1)
    }

    @Test func failsWhenEitherFails() {
        let source = ManualFlow<String>(), trigger = ManualFlow<Int>()
        let recorder = FlowRecorder(source.flow.sample(trigger.flow))
        source.send("a")
        source.fail(TestError(code: 2))
        #expect(recorder.events == [.failure(TestError(code: 2))])
        #expect(trigger.cancels.value == 1)

        let other = ManualFlow<String>(), failingTrigger = ManualFlow<Int>()
        let failed = FlowRecorder(other.flow.sample(failingTrigger.flow))
        failingTrigger.fail(TestError(code: 4))
        #expect(failed.events == [.failure(TestError(code: 4))])
        #expect(other.cancels.value == 1)
    }

    @Test func takesATriggerThatCannotFail() {
        let source = ManualFlow<String>(), ticks = LiveSubject<Void, Never>()
        let recorder = FlowRecorder(source.flow.sample(ticks.flow))
        source.send("a")
        ticks.send(())
        #expect(recorder.events == marbles("a"))
    }

    @Test func aDownstreamThatStopsAtTheLastSampleIsNotCompletedAfterwards() {
        let source = ManualFlow<String>(), trigger = ManualFlow<Int>()
        let completions = AtomicCounter()
        let sampled = source.flow.sample(trigger.flow).handleEvents(onCompletion: { _ in completions.increment() })
        let recorder = FlowRecorder(sampled.prefix(1))
        source.send("a"); source.finish()
        trigger.send(0)
        #expect(recorder.events == marbles("a|"))
        #expect(completions.value == 0, "prefix(1) wanted no more after the value: nothing may follow it")
    }

    @Test func queuesATriggerFiredFromInsideAValueHandler() {
        let source = ManualFlow<String>(), trigger = ManualFlow<Int>()
        let recorder = ReactingRecorder(source.flow.sample(trigger.flow)) { event in
            guard event == .value("a") else { return }
            trigger.send(1)  // nothing new: sends nothing
            source.send("b")
            trigger.send(2)  // samples "b" once this handler has returned
        }
        source.send("a")
        trigger.send(0)
        #expect(recorder.events == marbles("ab"))
        #expect(recorder.overlaps.value == 0)
    }

    @Test func cancellationCancelsBothOnce() {
        let source = ManualFlow<String>(), trigger = ManualFlow<Int>()
        let recorder = FlowRecorder(source.flow.sample(trigger.flow))
        source.send("a")
        recorder.cancel()
        trigger.send(0)
        #expect(recorder.events.isEmpty)
        #expect(source.cancels.value == 1 && trigger.cancels.value == 1)
    }
}
