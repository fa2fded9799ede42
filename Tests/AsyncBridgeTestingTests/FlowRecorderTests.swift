import Dispatch
import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("FlowRecorder and marbles")
struct FlowRecorderTests {
    @Test func recordsEventsAsEquatableValues() {
        let recorder = FlowRecorder(Flow<Int, Never>.sequence([1, 2]))
        #expect(recorder.events == [.value(1), .value(2), .finished])
        #expect(recorder.values == [1, 2])
        #expect(recorder.isCompleted)
    }

    @Test func aWrongExpectationFails() {
        let recorder = FlowRecorder(marbleFlow("ab|") as Flow<String, Never>)
        withKnownIssue("the recorder must expose a wrong expectation") {
            #expect(recorder.events == marbles("ba|"))
        }
        withKnownIssue("a missing completion must fail too") {
            #expect(recorder.events == marbles("ab"))
        }
    }

    @Test func marblesParseValuesCompletionAndFailure() {
        struct Oops: Error, Equatable {}
        #expect(marbles("a-b|") as [FlowEvent<String, Never>] == [.value("a"), .value("b"), .finished])
        #expect(marbles("a#", failure: Oops()) == [.value("a"), .failure(Oops())])
    }

    @Test func waitsForValuesAndCompletionWithoutSleeping() async {
        let emitter = SharedEmitter()
        let recorder = FlowRecorder(Flow<Int, Never>.create { emitter.set($0) })
        DispatchQueue.global().async {
            emitter.get()?.send(1)
            emitter.get()?.send(2)
            emitter.get()?.finish()
        }
        await recorder.waitForValues(2)
        #expect(recorder.values.count >= 2)
        await recorder.waitForCompletion()
        #expect(recorder.events == [.value(1), .value(2), .finished])
    }
}

/// Hands a synchronously created emitter to another thread.
private final class SharedEmitter: @unchecked Sendable {
    private var emitter: FlowEmitter<Int, Never>?
    func set(_ emitter: FlowEmitter<Int, Never>) { self.emitter = emitter }   // before the hand-off
    func get() -> FlowEmitter<Int, Never>? { emitter }
}
