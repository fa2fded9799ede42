import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("BidirectionalLiveRelay", .timeLimit(.minutes(1)))
struct BidirectionalPublishRelayTests {
    @Test func eachSideHearsOnlyTheOther() {
        let relay = BidirectionalLiveRelay<String>()
        let view = FlowRecorder(relay.view.flow)
        let work = FlowRecorder(relay.work.flow)
        relay.view.accept("v1")
        relay.work.accept("w1")
        relay.view.accept("v2")
        #expect(view.values == ["w1"])
        #expect(work.values == ["v1", "v2"])
    }

    @Test func neitherSideReplays() {
        let relay = BidirectionalLiveRelay<Int>()
        relay.view.accept(1)
        relay.work.accept(2)
        let view = FlowRecorder(relay.view.flow)
        let work = FlowRecorder(relay.work.flow)
        #expect(view.events == [] && work.events == [])
    }

    @Test func aSwitchBoundToAnAPICallCallsItOnceAndShowsTheResult() {
        let relay = BidirectionalLiveRelay<Bool>()
        let control = RelayTestSwitch()
        let api = RelayTestSettingsAPI()
        let bag = CancellationBag()
        // view side: the user's flips go in, results come out and are assigned to the switch
        control.userChanges.flow.bind(to: relay.view).store(in: bag)
        relay.view.flow.subscribe(with: control) { control, isOn in control.isOn = isOn }.store(in: bag)
        // work side: each flip calls the API, whose answer goes back to the view
        relay.work.flow.subscribe(onValue: { isOn in
            api.setNotifications(isOn) { relay.work.accept($0) }
        }, onCompletion: { _ in }).store(in: bag)

        control.userFlips()
        #expect(api.calls.value == [true], "exactly one API call: the work side never hears its own result")
        #expect(control.isOn)
    }
}
