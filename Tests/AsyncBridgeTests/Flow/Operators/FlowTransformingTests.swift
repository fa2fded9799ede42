import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("Flow: map, compactMap, filter", .timeLimit(.minutes(1)))
struct FlowTransformingTests {
    @Test func mapTransformsEachValue() {
        #expect(FlowRecorder(marbleFlow("abc|", failure: TestError()).map { $0.uppercased() }).events == marbles("ABC|"))
    }

    @Test func compactMapDropsNils() {
        let flow = Flow<String, Never>.sequence(["1", "x", "3"]).compactMap { Int($0) }
        #expect(FlowRecorder(flow).events == [.value(1), .value(3), .finished])
    }

    @Test func filterKeepsMatchingValuesAndPassesTheFailure() {
        let flow = marbleFlow("abcb#", failure: TestError()).filter { $0 == "b" }
        #expect(FlowRecorder(flow).events == marbles("bb#", failure: TestError()))
    }

    @Test func cancellingAChainReachesTheSource() {
        let cancels = AtomicCounter()
        let recorder = FlowRecorder(Flow<Int, Never>.create { emitter in emitter.onCancel { cancels.increment() } }
            .map { $0 + 1 }.filter { $0 > 0 }.compactMap { $0 })
        recorder.cancel()
        #expect(cancels.value == 1)
    }
}
