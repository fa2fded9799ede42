import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("Flow: handleEvents", .timeLimit(.minutes(1)))
struct FlowSideEffectsTests {
    @Test func seesEveryEventWithoutChangingIt() {
        let log = Box<[String]>([])
        let flow = marbleFlow("ab|", failure: TestError()).handleEvents(
            onSubscribe: { log.value.append("subscribe") },
            onValue: { log.value.append("value \($0)") },
            onCompletion: { log.value.append("completion \($0)") },
            onCancel: { log.value.append("cancel") }
        )
        #expect(FlowRecorder(flow).events == marbles("ab|"))
        #expect(log.value == ["subscribe", "value a", "value b", "completion finished"])
    }

    @Test func seesACancellationBeforeCompletionOnly() {
        let cancels = AtomicCounter()
        let recorder = FlowRecorder(Flow<Int, Never>.never.handleEvents(onCancel: { cancels.increment() }))
        recorder.cancel()
        recorder.cancel()
        #expect(cancels.value == 1)
        let finished = FlowRecorder(Flow<Int, Never>.just(1).handleEvents(onCancel: { cancels.increment() }))
        finished.cancel()
        #expect(cancels.value == 1)
    }
}
