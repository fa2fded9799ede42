import Testing
import AsyncBridge
import AsyncBridgeTesting

/// Defects found in review of the operators added on the `cond`, `many` and `ops` branches,
/// each pinned by the test that failed before its fix.
@Suite("Flow: review 1", .timeLimit(.minutes(1)))
struct Review1Tests {
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

    private static func subscribeAndConnectDroppingEverything(_ flow: Flow<String, TestError>) -> FlowRecorder<String, TestError> {
        let connectable = flow.publish()
        let recorder = FlowRecorder(connectable.flow)
        _ = connectable.connect()
        return recorder
    }
}
