import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("LiveRelay", .timeLimit(.minutes(1)))
struct PublishRelayTests {
    @Test func subscribersGetWhatIsAcceptedAfterThem() {
        let relay = LiveRelay<String>()
        relay.accept("lost")
        let early = FlowRecorder(relay.flow)
        relay.accept("a")
        let later = FlowRecorder(relay.flow)
        relay.accept("b")
        #expect(early.events == marbles("ab"))
        #expect(later.events == marbles("b"))
    }

    @Test func aRelayNeverCompletesNotEvenWhenReleased() {
        var relay: LiveRelay<Int>? = LiveRelay<Int>()
        let recorder = FlowRecorder(relay!.flow)
        for value in 1...100 { relay!.accept(value) }
        relay = nil
        #expect(recorder.values == Array(1...100))
        #expect(!recorder.isCompleted)
    }

    @Test func cancellingStopsDelivery() {
        let relay = LiveRelay<Int>()
        let recorder = FlowRecorder(relay.flow)
        relay.accept(1)
        recorder.cancel()
        relay.accept(2)
        #expect(recorder.values == [1])
    }

    @Test func aRelayIsARelayToGenericCode() {
        func forward<R: FlowRelay>(_ names: [String], to relay: R) where R.Element == String {
            for name in names { relay.accept(name) }
        }
        let relay = LiveRelay<String>()
        let recorder = FlowRecorder(relay.flow)
        forward(["a", "b"], to: relay)
        let erased: any FlowRelay<String> = relay
        erased.accept("c")
        #expect(recorder.events == marbles("abc"))
    }
}
