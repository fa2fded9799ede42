import Testing
import AsyncBridge
import AsyncBridgeTesting

/// Edge cases of the operators over several flows (connect, zip, groupBy, sample) that a review
/// found wrong: each test failed before its fix (zip's others are in `Combining/ZipTests.swift`).
@Suite("Flow: edge cases of connect, zip, groupBy and sample", .timeLimit(.minutes(1)))
struct CombiningEdgeCaseTests {
    /// A connection whose token was dropped runs as long as its upstream does ("releasing it
    /// does not disconnect"), so its subscribers must get the upstream's completion even when
    /// nothing else keeps the connectable. Before the fix the connection's upstream subscriber
    /// held the share weakly, and the completion was dropped once the connectable was gone.
    @Test func aConnectionKeptByNobodyStillDeliversTheCompletion() {
        let source = ManualFlow<String>()
        let recorder = Self.subscribeAndConnectDroppingEverything(source.flow)
        source.send("a")
        source.finish()
        #expect(recorder.events == marbles("a|"))
    }

    /// The upstream's completion reaches the groups first; a group's handler that cancels the
    /// outer subscription then must keep the completion from it (nothing after a cancellation
    /// has returned, as a subject does for a handler that cancels another subscriber). Before
    /// the fix the outer subscriber was taken before the groups completed, and still got
    /// `.finished` after its cancellation had returned.
    @Test func aGroupHandlerCancellingTheOuterAtTheCompletionKeepsItFromTheOuter() {
        let source = ManualFlow<String>()
        let outerToken = Box<CancellationToken?>(nil)
        let groupTokens = Box<[CancellationToken]>([])
        let outerEvents = Box<[String]>([])
        outerToken.value = source.flow.groupBy { $0 }.subscribe(onValue: { group in
            outerEvents.mutate { $0.append(group.key) }
            let token = group.flow.subscribe(onValue: { _ in }, onCompletion: { _ in outerToken.value?.cancel() })
            groupTokens.mutate { $0.append(token) }
        }, onCompletion: { _ in outerEvents.mutate { $0.append("|") } })
        source.send("a")
        source.finish()
        #expect(groupTokens.value.count == 1)
        #expect(outerEvents.value == ["a"], "the outer was cancelled before its completion was delivered")
    }

    /// A subscriber that cancels itself in the handler of the last value must get nothing
    /// more. Before the fix, sample (its last sample) and the zips (a tuple that uses up a
    /// finished source) completed it after its cancellation had returned.
    @Test(arguments: ["sample", "zip2", "zip3", "zipCollection"])
    func aSubscriberCancellingItselfAtTheLastValueIsNotCompletedAfterwards(operator name: String) {
        let a = ManualFlow<String>(), b = ManualFlow<String>(), c = ManualFlow<String>()
        let flow: Flow<String, TestError> = switch name {
        case "sample": a.flow.sample(b.flow)
        case "zip2": a.flow.zip(b.flow) { $0 + $1 }
        case "zip3": a.flow.zip(b.flow, c.flow) { $0 + $1 + $2 }
        default: Flow.zip([a.flow, b.flow, c.flow]).map { $0.joined() }
        }
        let token = Box<CancellationToken?>(nil)
        let events = Box<[FlowEvent<String, TestError>]>([])
        token.value = flow.subscribe { event in
            events.mutate { $0.append(event) }
            if case .value = event { token.value?.cancel() }
        }
        a.send("a"); a.finish()
        b.send("b")
        if name == "zip3" || name == "zipCollection" { c.send("c") }
        #expect(events.value.count == 1, "only the value: \(events.value)")
    }

    private static func subscribeAndConnectDroppingEverything(_ flow: Flow<String, TestError>) -> FlowRecorder<String, TestError> {
        let connectable = flow.publish()
        let recorder = FlowRecorder(connectable.flow)
        _ = connectable.connect()
        return recorder
    }
}
