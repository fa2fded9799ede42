import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("ReplayingRelay", .timeLimit(.minutes(1)))
struct ReplayRelayTests {
    @Test func aNewSubscriberGetsUpToBufferSizeLatestValuesInOrder() {
        let relay = ReplayingRelay<String>(bufferSize: 2)
        relay.accept("a")
        #expect(FlowRecorder(relay.flow).events == marbles("a"))
        relay.accept("b")
        relay.accept("c")
        let recorder = FlowRecorder(relay.flow)
        relay.accept("d")
        #expect(recorder.events == marbles("bcd"))
    }

    @Test func aRelayNeverCompletesNotEvenWhenReleased() {
        var relay: ReplayingRelay<Int>? = ReplayingRelay<Int>(bufferSize: 1)
        relay!.accept(1)
        let recorder = FlowRecorder(relay!.flow)
        relay!.accept(2)
        relay = nil
        #expect(recorder.events == [.value(1), .value(2)])
    }

    @Test func cancellingStopsDelivery() {
        let relay = ReplayingRelay<Int>(bufferSize: 3)
        relay.accept(1)
        let recorder = FlowRecorder(relay.flow)
        recorder.cancel()
        relay.accept(2)
        #expect(recorder.values == [1])
    }
}
