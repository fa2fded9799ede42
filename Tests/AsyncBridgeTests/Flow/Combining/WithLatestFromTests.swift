import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("Flow: withLatestFrom", .timeLimit(.minutes(1)))
struct WithLatestFromTests {
    @Test func withLatestFromSamplesTheOtherFlow() {
        let taps = ManualFlow<String>(), form = ManualFlow<Int>()
        let recorder = FlowRecorder(taps.flow.withLatestFrom(form.flow).map { "\($0)\($1)" })
        taps.send("a"); form.send(1); taps.send("b"); form.send(2); form.finish(); taps.send("c"); taps.finish()
        #expect(recorder.events == [.value("b1"), .value("c2"), .finished])
    }
}
