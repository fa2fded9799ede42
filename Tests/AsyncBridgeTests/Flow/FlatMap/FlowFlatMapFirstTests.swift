import AsyncBridge
import AsyncBridgeTesting
import Testing

@Suite("Flow: flatMapFirst", .timeLimit(.minutes(1)))
struct FlowFlatMapFirstTests {
    @Test func ignoresValuesWhileAnInnerRunsWithoutCallingTheTransform() {
        let outer = ManualOuterFlow<String, TestError>()
        let inners = ManualInnerFlows<String, TestError>()
        let transformed = Box<[String]>([])
        let recorder = FlowRecorder(outer.flow.flatMapFirst { value in
            transformed.value.append(value)
            return inners.flow(value)
        })
        outer.send("a")
        outer.send("b")  // ignored
        inners.send("a", "1")
        outer.send("c")  // ignored
        inners.finish("a")
        outer.send("d")
        inners.send("d", "2")
        inners.finish("d")
        #expect(transformed.value == ["a", "d"])
        #expect(inners.subscribed == ["a", "d"])
        #expect(recorder.events == marbles("12"))
    }

    @Test func theOuterFinishingWaitsForTheRunningInner() {
        let outer = ManualOuterFlow<String, TestError>()
        let inners = ManualInnerFlows<String, TestError>()
        let recorder = FlowRecorder(outer.flow.flatMapFirst { inners.flow($0) })
        outer.send("a")
        outer.finish()
        #expect(recorder.events == marbles(""))
        inners.send("a", "1")
        inners.finish("a")
        #expect(recorder.events == marbles("1|"))
    }

    @Test func anInnerFailureFailsTheResultAndCancelsTheOuter() {
        let outer = ManualOuterFlow<String, TestError>()
        let inners = ManualInnerFlows<String, TestError>()
        let recorder = FlowRecorder(outer.flow.flatMapFirst { inners.flow($0) })
        outer.send("a")
        inners.fail("a", TestError(code: 5))
        #expect(recorder.events == marbles("#", failure: TestError(code: 5)))
        #expect(outer.cancels == 1)
    }

    @Test func anOuterFailureFailsTheResultAndCancelsTheRunningInner() {
        let outer = ManualOuterFlow<String, TestError>()
        let inners = ManualInnerFlows<String, TestError>()
        let recorder = FlowRecorder(outer.flow.flatMapFirst { inners.flow($0) })
        outer.send("a")
        inners.send("a", "1")
        outer.fail(TestError(code: 6))
        #expect(recorder.events == marbles("1#", failure: TestError(code: 6)))
        #expect(inners.cancels("a") == 1)
    }

    @Test func innersThatFinishInsideSubscribeNeverCauseAnIgnoredValue() {
        let count = AtomicCounter()
        _ = Flow<Int, Never>.sequence(0..<100_000).flatMapFirst { .just($0) }.subscribe(onValue: { _ in count.increment() }, onCompletion: { _ in })
        #expect(count.value == 100_000)
    }
}
