import Testing
import AsyncBridge
import AsyncBridgeTesting

/// The operators over two flows added with `prefix(untilOutputFrom:)`, `sample`, `append` and
/// `race` (and the one-flow conditions), built around a closure that captures a tracked
/// object, release it and both flows after completion and after cancellation (contract 5),
/// and cancel each flow at most once, the source exactly once when cancelled while it runs.
@Suite("Flow: the condition, sampling, concatenating and racing operators release what they hold", .timeLimit(.minutes(1)))
struct FlowConditionsLeakTests {
    typealias Build = @Sendable (Flow<Int, TestError>, Flow<Int, TestError>, Tracked) -> Flow<Int, TestError>

    static let operators: [(String, Build)] = [
        ("prefix(while:)", { flow, _, t in flow.prefix { _ = t; return $0 < 100 } }),
        ("drop(while:)", { flow, _, t in flow.drop { _ = t; return $0 < 0 } }),
        ("prefix(untilOutputFrom:)", { flow, other, t in flow.map { _ = t; return $0 }.prefix(untilOutputFrom: other) }),
        ("drop(untilOutputFrom:)", { flow, other, t in flow.map { _ = t; return $0 }.drop(untilOutputFrom: other) }),
        ("sample", { flow, other, t in flow.map { _ = t; return $0 }.sample(other) }),
        ("append", { flow, other, t in flow.append(other.map { _ = t; return $0 }) }),
        ("prepend(flow)", { flow, other, t in other.map { _ = t; return $0 }.prepend(flow) }),
        ("concat", { flow, other, t in .concat(flow.map { _ = t; return $0 }, other) }),
        ("race", { flow, other, t in flow.map { _ = t; return $0 }.race(with: other) }),
        ("switchToLatest", { flow, other, t in flow.map { _ in other.map { _ = t; return $0 } }.switchToLatest() }),
        ("merge()", { flow, other, t in flow.map { _ in other.map { _ = t; return $0 } }.merge() }),
        ("concat()", { flow, other, t in flow.map { _ in other.map { _ = t; return $0 } }.concat() }),
    ]

    /// The source sends a value and finishes, then the other flow finishes.
    @Test(arguments: operators.map(\.0))
    func releasesAfterCompletion(_ name: String) throws {
        let (source, _) = try run(name) { source, other, recorder in
            source.send(1)
            source.finish()
            other.finish()
            #expect(recorder.isCompleted, "\(name) completes")
        }
        #expect(source.cancels.value == 0, "\(name) cancels nothing that completed")
    }

    @Test(arguments: operators.map(\.0))
    func releasesAfterCancellation(_ name: String) throws {
        let (source, _) = try run(name) { source, _, recorder in
            source.send(1)
            recorder.cancel()
        }
        #expect(source.cancels.value == 1, "\(name) cancels its source once")
    }

    /// Builds operator `name` around a tracked object, lets `drive` play with its flows and a
    /// recorder, then checks that the object is gone and the other flow was cancelled at most
    /// once.
    private func run(
        _ name: String,
        _ drive: (ManualFlow<Int>, ManualFlow<Int>, FlowRecorder<Int, TestError>) -> Void
    ) throws -> (source: ManualFlow<Int>, other: ManualFlow<Int>) {
        let build = try #require(Self.operators.first { $0.0 == name }?.1)
        let source = ManualFlow<Int>(), other = ManualFlow<Int>()
        expectReleased(name) { tracked in
            drive(source, other, FlowRecorder(build(source.flow, other.flow, tracked)))
        }
        #expect(other.cancels.value <= 1, "\(name) cancels the other flow at most once")
        return (source, other)
    }
}
