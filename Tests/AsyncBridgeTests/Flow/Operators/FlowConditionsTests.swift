import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("Flow: prefix(while:), drop(while:), prefix(untilOutputFrom:), drop(untilOutputFrom:)", .timeLimit(.minutes(1)))
struct FlowConditionsTests {
    // MARK: prefix(while:)

    @Test func prefixWhileStopsAtTheFirstFailingValueAndCancelsTheSource() {
        let source = ManualFlow<String>()
        let calls = AtomicCounter()
        let recorder = FlowRecorder(source.flow.prefix { calls.increment(); return $0 != "x" })
        source.send("a"); source.send("b")
        #expect(source.cancels.value == 0)
        source.send("x")
        source.send("c")
        #expect(recorder.events == marbles("ab|"))
        #expect(source.cancels.value == 1)
        #expect(calls.value == 3)
    }

    @Test func prefixWhilePassesTheSourceCompletion() {
        #expect(FlowRecorder(marbleFlow("ab|", failure: TestError()).prefix { _ in true }).events == marbles("ab|"))
        #expect(FlowRecorder(marbleFlow("ab#", failure: TestError()).prefix { _ in true }).events == marbles("ab#", failure: TestError()))
    }

    @Test func prefixWhileStopsASynchronousSource() {
        let produced = AtomicCounter()
        let flow = Flow<Int, Never>.sequence(0..<1_000_000).map { value -> Int in
            produced.increment()
            return value
        }
        #expect(FlowRecorder(flow.prefix { $0 < 3 }).events == [.value(0), .value(1), .value(2), .finished])
        #expect(produced.value == 4)
    }

    @Test func prefixWhileCancellationCancelsTheSourceOnce() {
        let source = ManualFlow<String>()
        let recorder = FlowRecorder(source.flow.prefix { _ in true })
        source.send("a")
        recorder.cancel()
        recorder.cancel()
        source.send("b")
        #expect(recorder.events == marbles("a"))
        #expect(source.cancels.value == 1)
    }

    // MARK: drop(while:)

    @Test func dropWhileDropsUntilTheFirstFailingValueThenSendsEverything() {
        let calls = AtomicCounter()
        let flow = marbleFlow("aabab|", failure: TestError()).drop { calls.increment(); return $0 == "a" }
        #expect(FlowRecorder(flow).events == marbles("bab|"))
        #expect(calls.value == 3, "the predicate is not called after the first failing value")
        #expect(FlowRecorder(marbleFlow("aa#", failure: TestError()).drop { $0 == "a" }).events == marbles("#", failure: TestError()))
    }

    @Test func dropWhileCancellationCancelsTheSourceOnce() {
        let source = ManualFlow<String>()
        let recorder = FlowRecorder(source.flow.drop { $0 == "a" })
        source.send("a"); source.send("b")
        recorder.cancel()
        source.send("c")
        #expect(recorder.events == marbles("b"))
        #expect(source.cancels.value == 1)
    }

    // MARK: prefix(untilOutputFrom:)

    @Test func prefixUntilOutputFinishesAtTheTriggerValueAndCancelsBoth() {
        let source = ManualFlow<String>(), trigger = ManualFlow<Int>()
        let recorder = FlowRecorder(source.flow.prefix(untilOutputFrom: trigger.flow))
        source.send("a"); source.send("b")
        trigger.send(0)
        source.send("c")
        #expect(recorder.events == marbles("ab|"))
        #expect(source.cancels.value == 1 && trigger.cancels.value == 1)
    }

    /// RxSwift and Combine agree: a trigger that finishes without a value changes nothing.
    @Test func prefixUntilOutputGoesOnWhenTheTriggerFinishesWithoutAValue() {
        let source = ManualFlow<String>(), trigger = ManualFlow<Int>()
        let recorder = FlowRecorder(source.flow.prefix(untilOutputFrom: trigger.flow))
        source.send("a")
        trigger.finish()
        source.send("b")
        #expect(!recorder.isCompleted)
        source.finish()
        #expect(recorder.events == marbles("ab|"))
        #expect(source.cancels.value == 0 && trigger.cancels.value == 0)
    }

    /// RxSwift's `take(until:)`, not Combine (which ignores the trigger's failure).
    @Test func prefixUntilOutputFailsWhenTheTriggerFails() {
        let source = ManualFlow<String>(), trigger = ManualFlow<Int>()
        let recorder = FlowRecorder(source.flow.prefix(untilOutputFrom: trigger.flow))
        source.send("a")
        trigger.fail(TestError(code: 7))
        #expect(recorder.events == [.value("a"), .failure(TestError(code: 7))])
        #expect(source.cancels.value == 1 && trigger.cancels.value == 0)
    }

    @Test func prefixUntilOutputPassesTheSourceCompletionAndCancelsTheTrigger() {
        let source = ManualFlow<String>(), trigger = ManualFlow<Int>()
        let recorder = FlowRecorder(source.flow.prefix(untilOutputFrom: trigger.flow))
        source.send("a"); source.fail()
        #expect(recorder.events == marbles("a#", failure: TestError()))
        #expect(source.cancels.value == 0 && trigger.cancels.value == 1)
    }

    @Test func prefixUntilOutputTakesATriggerThatCannotFail() {
        let source = ManualFlow<String>(), trigger = LiveSubject<Void, Never>()
        let recorder = FlowRecorder(source.flow.prefix(untilOutputFrom: trigger.flow))
        source.send("a")
        trigger.send(())
        #expect(recorder.events == marbles("a|"))
        #expect(source.cancels.value == 1)
    }

    @Test func prefixUntilOutputOfASynchronousTriggerNeverSubscribesTheSource() {
        let subscriptions = AtomicCounter()
        let flow = counting(marbleFlow("ab|"), subscriptions).prefix(untilOutputFrom: Flow<Int, TestError>.just(0))
        #expect(FlowRecorder(flow).events == marbles("|"))
        #expect(subscriptions.value == 0)
    }

    @Test func prefixUntilOutputQueuesATriggerFiredFromInsideAValueHandler() {
        let source = ManualFlow<String>(), trigger = ManualFlow<Int>()
        let recorder = ReactingRecorder(source.flow.prefix(untilOutputFrom: trigger.flow)) { event in
            if event == .value("a") {
                trigger.send(0)
                source.send("b")
            }
        }
        source.send("a")
        #expect(recorder.events == marbles("a|"))
        #expect(recorder.overlaps.value == 0)
        #expect(source.cancels.value == 1 && trigger.cancels.value == 1)
    }

    @Test func prefixUntilOutputCancellationCancelsBothOnce() {
        let source = ManualFlow<String>(), trigger = ManualFlow<Int>()
        let recorder = FlowRecorder(source.flow.prefix(untilOutputFrom: trigger.flow))
        source.send("a")
        recorder.cancel()
        source.send("b"); trigger.send(0)
        #expect(recorder.events == marbles("a"))
        #expect(source.cancels.value == 1 && trigger.cancels.value == 1)
    }

    // MARK: drop(untilOutputFrom:)

    @Test func dropUntilOutputDropsUntilTheTriggerValueThenCancelsTheTrigger() {
        let source = ManualFlow<String>(), trigger = ManualFlow<Int>()
        let recorder = FlowRecorder(source.flow.drop(untilOutputFrom: trigger.flow))
        source.send("a")
        trigger.send(0)
        #expect(trigger.cancels.value == 1)
        source.send("b"); source.send("c"); source.finish()
        #expect(recorder.events == marbles("bc|"))
        #expect(source.cancels.value == 0)
    }

    /// Combine's `drop(untilOutputFrom:)`; RxSwift's `skip(until:)` would drop on and never end.
    @Test func dropUntilOutputFinishesWhenTheTriggerFinishesWithoutAValue() {
        let source = ManualFlow<String>(), trigger = ManualFlow<Int>()
        let recorder = FlowRecorder(source.flow.drop(untilOutputFrom: trigger.flow))
        source.send("a")
        trigger.finish()
        #expect(recorder.events == marbles("|"))
        #expect(source.cancels.value == 1)
    }

    /// Combine; RxSwift's `skip(until:)` swallows the source's completion.
    @Test func dropUntilOutputFinishesWithTheSourceBeforeTheTrigger() {
        let source = ManualFlow<String>(), trigger = ManualFlow<Int>()
        let recorder = FlowRecorder(source.flow.drop(untilOutputFrom: trigger.flow))
        source.send("a"); source.finish()
        #expect(recorder.events == marbles("|"))
        #expect(trigger.cancels.value == 1)
    }

    @Test func dropUntilOutputFailsWhenEitherFails() {
        let source = ManualFlow<String>(), trigger = ManualFlow<Int>()
        let recorder = FlowRecorder(source.flow.drop(untilOutputFrom: trigger.flow))
        trigger.fail(TestError(code: 3))
        #expect(recorder.events == [.failure(TestError(code: 3))])
        #expect(source.cancels.value == 1)
        let failing = marbleFlow("ab#", failure: TestError()).drop(untilOutputFrom: Flow<Int, TestError>.just(0))
        #expect(FlowRecorder(failing).events == marbles("ab#", failure: TestError()))
    }

    @Test func dropUntilOutputOfASynchronousTriggerLetsASynchronousSourceThrough() {
        #expect(FlowRecorder(marbleFlow("ab|").drop(untilOutputFrom: Flow<Int, TestError>.just(0))).events == marbles("ab|"))
        #expect(FlowRecorder(marbleFlow("ab|", failure: TestError()).drop(untilOutputFrom: Flow<Void, Never>.just(()))).events == marbles("ab|"))
    }

    @Test func dropUntilOutputQueuesAValueSentFromInsideAValueHandler() {
        let source = ManualFlow<String>(), trigger = ManualFlow<Int>()
        let recorder = ReactingRecorder(source.flow.drop(untilOutputFrom: trigger.flow)) { event in
            if event == .value("b") {
                source.send("c")
                source.finish()
            }
        }
        trigger.send(0)
        source.send("b")
        #expect(recorder.events == marbles("bc|"))
        #expect(recorder.overlaps.value == 0)
    }

    @Test func dropUntilOutputCancellationCancelsBothOnce() {
        let source = ManualFlow<String>(), trigger = ManualFlow<Int>()
        let recorder = FlowRecorder(source.flow.drop(untilOutputFrom: trigger.flow))
        recorder.cancel()
        trigger.send(0); source.send("b")
        #expect(recorder.events.isEmpty)
        #expect(source.cancels.value == 1 && trigger.cancels.value == 1)
    }
}
