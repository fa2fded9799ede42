import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("LatestValueRelay", .timeLimit(.minutes(1)))
struct BehaviorRelayTests {
    @Test func aSubscriberGetsTheCurrentValueFirstThenWhatIsAccepted() {
        let relay = LatestValueRelay(value: "a")
        let first = FlowRecorder(relay.flow)
        relay.accept("b")
        let second = FlowRecorder(relay.flow)
        relay.accept("c")
        #expect(first.events == marbles("abc"))
        #expect(second.events == marbles("bc"))
    }

    @Test func valueIsTheLatestAccepted() {
        let relay = LatestValueRelay(value: 0)
        #expect(relay.value == 0)
        relay.accept(1)
        relay.accept(2)
        #expect(relay.value == 2)
    }

    @Test func aRelayNeverCompletesNotEvenWhenReleased() {
        var relay: LatestValueRelay<Int>? = LatestValueRelay(value: 0)
        let recorder = FlowRecorder(relay!.flow)
        relay!.accept(1)
        relay = nil
        #expect(recorder.events == [.value(0), .value(1)])
    }

    @Test func cancellingStopsDelivery() {
        let relay = LatestValueRelay(value: 0)
        let recorder = FlowRecorder(relay.flow)
        recorder.cancel()
        relay.accept(1)
        #expect(recorder.values == [0])
    }

    @Test func aHandlerThatAcceptsIntoItsOwnRelayIsServedAfterTheCurrentValue() {
        let relay = LatestValueRelay(value: 0)
        let seen = Box<[Int]>([])
        _ = relay.flow.subscribe(onValue: { value in
            seen.value.append(value)
            if value < 3 { relay.accept(value + 1) }  // re-entrant
            #expect(relay.value == min(value + 1, 3), "value reflects the accept at once")
        }, onCompletion: { _ in })
        #expect(seen.value == [0, 1, 2, 3])
        #expect(relay.value == 3)
    }
}
