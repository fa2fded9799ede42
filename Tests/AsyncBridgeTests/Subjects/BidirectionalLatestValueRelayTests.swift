import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("BidirectionalLatestValueRelay", .timeLimit(.minutes(1)))
struct BidirectionalBehaviorRelayTests {
    @Test func theViewStartsFromTheLatestWorkValueTheWorkFromNothing() {
        let relay = BidirectionalLatestValueRelay(value: "initial")
        #expect(FlowRecorder(relay.view.flow).values == ["initial"])
        let work = FlowRecorder(relay.work.flow)
        #expect(work.values == [], "subscribing the worker triggers nothing by itself")
        relay.work.accept("saved")
        #expect(FlowRecorder(relay.view.flow).values == ["saved"])
        relay.view.accept("typed")
        #expect(work.values == ["typed"])
        #expect(FlowRecorder(relay.view.flow).values == ["saved"], "the view's own input is not its state")
    }

    /// An action relay: a switch bound to an API call, whose result sets the switch (without
    /// calling the API again).
    @Test func aSwitchBoundToAnAPICallCallsItExactlyOnce() {
        let relay = BidirectionalLatestValueRelay(value: false)
        let control = RelayTestSwitch(isOn: true)  // stale until the relay says otherwise
        let api = RelayTestSettingsAPI()
        let bag = CancellationBag()
        relay.view.flow.subscribe(with: control) { control, isOn in control.isOn = isOn }.store(in: bag)
        #expect(!control.isOn, "the switch shows the stored setting at once")
        control.userChanges.flow.bind(to: relay.view).store(in: bag)
        relay.work.flow.subscribe(onValue: { isOn in
            api.setNotifications(isOn) { relay.work.accept($0) }
        }, onCompletion: { _ in }).store(in: bag)
        #expect(api.calls.value == [], "binding calls nothing")

        control.userFlips()
        #expect(api.calls.value == [true], "the result written back to the switch triggers no second call")
        #expect(control.isOn)

        control.userFlips()
        #expect(api.calls.value == [true, false])
        #expect(!control.isOn)
    }

    @Test func aRefusedChangeSetsTheSwitchBackWithOneCall() {
        let relay = BidirectionalLatestValueRelay(value: false)
        let control = RelayTestSwitch()
        let api = RelayTestSettingsAPI(refuses: true)
        let bag = CancellationBag()
        relay.view.flow.subscribe(with: control) { control, isOn in control.isOn = isOn }.store(in: bag)
        control.userChanges.flow.bind(to: relay.view).store(in: bag)
        relay.work.flow.subscribe(onValue: { isOn in
            api.setNotifications(isOn) { relay.work.accept($0) }
        }, onCompletion: { _ in }).store(in: bag)

        control.userFlips()
        #expect(api.calls.value == [true])
        #expect(!control.isOn, "the server said no; the switch shows it")
    }

    /// The loop the bidirectional relay prevents: the same wiring through one ordinary relay
    /// that both sides read calls the API again with its own answer, for as long as it answers.
    @Test func theSameWiringThroughOneSharedRelayLoops() {
        let shared = LiveRelay<Bool>()
        let control = RelayTestSwitch()
        let api = RelayTestSettingsAPI(maxAnswers: 5)  // stops answering, so the test ends
        let bag = CancellationBag()
        shared.flow.subscribe(with: control) { control, isOn in control.isOn = isOn }.store(in: bag)
        control.userChanges.flow.bind(to: shared).store(in: bag)
        shared.flow.subscribe(onValue: { isOn in
            api.setNotifications(isOn) { shared.accept($0) }
        }, onCompletion: { _ in }).store(in: bag)

        control.userFlips()
        #expect(api.calls.value.count == 6, "five answers, each heard as a new request, and one unanswered call")
    }
}
