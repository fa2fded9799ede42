import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("Flow: scan, prepend", .timeLimit(.minutes(1)))
struct FlowAccumulatingTests {
    @Test func scanSendsRunningResults() {
        let totals = Flow<Int, TestError>.sequence([1, 2, 3]).scan(0, +)
        #expect(FlowRecorder(totals).events == [.value(1), .value(3), .value(6), .finished])
        #expect(FlowRecorder(marbleFlow("ab#", failure: TestError()).scan("", +)).events == [.value("a"), .value("ab"), .failure(TestError())])
    }

    @Test func scanStartsAfreshForEachSubscription() {
        let totals = Flow<Int, Never>.sequence([1, 2]).scan(0, +)
        #expect(FlowRecorder(totals).values == [1, 3])
        #expect(FlowRecorder(totals).values == [1, 3])
    }

    @Test func prependSendsValuesFirst() {
        #expect(FlowRecorder(marbleFlow("c|", failure: TestError()).prepend("a", "b")).events == marbles("abc|"))
        #expect(FlowRecorder(marbleFlow("c|", failure: TestError()).prepend("a", "b").prefix(1)).events == marbles("a|"))
    }
}
