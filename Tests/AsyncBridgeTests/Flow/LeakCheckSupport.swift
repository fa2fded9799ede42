import Testing
import AsyncBridge
import AsyncBridgeTesting

/// Runs `body` with a tracked object that the code under test captures, then expects that
/// nothing retains it any more (contract 5).
///
/// ```swift
/// expectReleased("map after cancellation") { tracked in
///     FlowRecorder(source.flow.map { _ = tracked; return $0 }).cancel()
/// }
/// ```
func expectReleased(_ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: (Tracked) -> Void) {
    weak var captured: Tracked?
    do {
        let tracked = Tracked()
        captured = tracked
        body(tracked)
    }
    #expect(captured == nil, "\(what) keeps what it captured", sourceLocation: sourceLocation)
}

/// One operator of a leak suite: its name, and how it is built on a source around a closure that
/// captures a tracked object.
typealias LeakCheckedOperator = (name: String, build: @Sendable (Flow<Int, TestError>, Tracked) -> Flow<Int, TestError>)

/// The operator named `name` in `operators` releases its closure after its source finished, and
/// cancels nothing (contract 5); with `sendingValues`, it must also have sent a value.
///
/// ```swift
/// @Test(arguments: operators.map(\.name)) func releasesAfterCompletion(_ name: String) throws {
///     try expectReleasedAfterCompletion(name, in: Self.operators)
/// }
/// ```
func expectReleasedAfterCompletion(
    _ name: String,
    in operators: [LeakCheckedOperator],
    sendingValues: Bool = false,
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let build = try #require(operators.first { $0.name == name }?.build)
    let source = ManualFlow<Int>()
    expectReleased("\(name) after completion", sourceLocation: sourceLocation) { tracked in
        let recorder = FlowRecorder(build(source.flow, tracked))
        source.send(1)
        source.finish()
        #expect(recorder.isCompleted, "\(name) completes when its source does", sourceLocation: sourceLocation)
        if sendingValues { #expect(!recorder.values.isEmpty, "\(name) sent something", sourceLocation: sourceLocation) }
    }
    #expect(source.cancels.value == 0, "\(name) cancels nothing after completion", sourceLocation: sourceLocation)
}

/// The operator named `name` in `operators` releases its closure after a cancellation, and
/// cancels its source once (contract 5).
func expectReleasedAfterCancellation(_ name: String, in operators: [LeakCheckedOperator], sourceLocation: SourceLocation = #_sourceLocation) throws {
    let build = try #require(operators.first { $0.name == name }?.build)
    let source = ManualFlow<Int>()
    expectReleased("\(name) after cancellation", sourceLocation: sourceLocation) { tracked in
        let recorder = FlowRecorder(build(source.flow, tracked))
        source.send(1)
        recorder.cancel()
    }
    #expect(source.cancels.value == 1, "\(name) cancels its source once", sourceLocation: sourceLocation)
}
