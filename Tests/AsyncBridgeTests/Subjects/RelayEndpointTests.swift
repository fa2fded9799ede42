import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("RelayEndpoint", .timeLimit(.minutes(1)))
struct RelayEndpointTests {
    @Test func anEndpointWorksOnItsOwnAfterTheRelayIsGone() {
        weak var weakRelay: BidirectionalLatestValueRelay<Int>?
        let view: RelayEndpoint<Int>
        let work: RelayEndpoint<Int>
        do {
            let relay = BidirectionalLatestValueRelay(value: 0)
            weakRelay = relay
            view = relay.view
            work = relay.work
        }
        #expect(weakRelay == nil, "endpoints do not keep the relay alive")
        let shown = FlowRecorder(view.flow)
        let requested = FlowRecorder(work.flow)
        view.accept(1)
        work.accept(2)
        #expect(shown.values == [0, 2])
        #expect(requested.values == [1])
    }

    @Test func anEndpointIsARelayThatFlowsBindTo() {
        let relay = BidirectionalLiveRelay<String>()
        let requested = FlowRecorder(relay.work.flow)
        let token = marbleFlow("ab|").bind(to: relay.view)
        let endpoint: any FlowRelay<String> = relay.view
        endpoint.accept("c")
        #expect(requested.events == marbles("abc"), "the source's finish does not end the relay")
        token.cancel()
    }
}
