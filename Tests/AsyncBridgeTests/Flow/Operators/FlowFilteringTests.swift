import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("Flow: prefix, first, dropFirst, removeDuplicates", .timeLimit(.minutes(1)))
struct FlowFilteringTests {
    @Test func prefixTakesCountValuesThenFinishesAndCancelsTheSource() {
        let cancels = AtomicCounter()
        let emitter = Box<FlowEmitter<String, Never>?>(nil)
        let recorder = FlowRecorder(Flow<String, Never>.create { sink in
            emitter.value = sink
            sink.onCancel { cancels.increment() }
        }.prefix(2))
        emitter.value?.send("a")
        #expect(cancels.value == 0)
        emitter.value?.send("b")
        // With the 2nd value, not at a 3rd (Combine's prefix, as OpenCombine implements it).
        #expect(recorder.events == marbles("ab|"))
        #expect(cancels.value == 1)
        emitter.value?.send("c")
        #expect(recorder.events == marbles("ab|"))
    }

    @Test func prefixStopsASynchronousSource() {
        let produced = AtomicCounter()
        let flow = Flow<Int, Never>.sequence(0..<1_000_000).map { value -> Int in
            produced.increment()
            return value
        }
        #expect(FlowRecorder(flow.prefix(3)).events == [.value(0), .value(1), .value(2), .finished])
        #expect(produced.value == 3)
    }

    @Test func prefixPassesAnEarlierCompletionOrFailure() {
        #expect(FlowRecorder(marbleFlow("a|", failure: TestError()).prefix(3)).events == marbles("a|"))
        #expect(FlowRecorder(marbleFlow("a#", failure: TestError()).prefix(3)).events == marbles("a#", failure: TestError()))
        #expect(FlowRecorder(marbleFlow("abc|", failure: TestError()).prefix(0)).events == marbles("|"))
        #expect(FlowRecorder(Flow<String, Never>.never.prefix(0)).events == [.finished], "at once, not at a first value")
    }

    @Test func firstAndFirstWhere() {
        #expect(FlowRecorder(marbleFlow("abc|", failure: TestError()).first()).events == marbles("a|"))
        #expect(FlowRecorder(marbleFlow("abc|", failure: TestError()).first { $0 == "b" }).events == marbles("b|"))
        #expect(FlowRecorder(marbleFlow("|", failure: TestError()).first()).events == marbles("|"))
    }

    @Test func dropFirstSkips() {
        #expect(FlowRecorder(marbleFlow("abc|", failure: TestError()).dropFirst()).events == marbles("bc|"))
        #expect(FlowRecorder(marbleFlow("abc#", failure: TestError()).dropFirst(5)).events == marbles("#", failure: TestError()))
    }

    @Test func removeDuplicatesDropsRepeats() {
        #expect(FlowRecorder(marbleFlow("aabbba|", failure: TestError()).removeDuplicates()).events == marbles("aba|"))
        let flow = Flow<Int, Never>.sequence([1, 2, 12, 13, 25]).removeDuplicates { $1 - $0 < 5 }
        #expect(FlowRecorder(flow).values == [1, 12, 25])
    }
}
