import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("Flow: setFailureType, mapError, catch, replaceError", .timeLimit(.minutes(1)))
struct FlowFailuresTests {
    @Test func setFailureTypeChangesOnlyTheType() {
        let flow: Flow<Int, TestError> = Flow<Int, Never>.sequence([1]).setFailureType(to: TestError.self)
        #expect(FlowRecorder(flow).events == [.value(1), .finished])
    }

    @Test func mapErrorTransformsTheFailure() {
        let flow = marbleFlow("a#", failure: TestError(code: 1)).mapError { TestError(code: $0.code + 1) }
        #expect(FlowRecorder(flow).events == marbles("a#", failure: TestError(code: 2)))
    }

    @Test func catchContinuesWithTheFallback() {
        let flow: Flow<String, Never> = marbleFlow("ab#", failure: TestError()).catch { _ in marbleFlow("xy|") }
        #expect(FlowRecorder(flow).events == marbles("abxy|"))
        let untouched: Flow<String, Never> = marbleFlow("ab|", failure: TestError()).catch { _ in marbleFlow("xy|") }
        #expect(FlowRecorder(untouched).events == marbles("ab|"))
    }

    @Test func cancellingDuringTheFallbackCancelsIt() {
        let cancels = AtomicCounter()
        let recorder = FlowRecorder(Flow<Int, TestError>.fail(TestError()).catch { _ in
            Flow<Int, Never>.create { emitter in emitter.onCancel { cancels.increment() } }
        })
        recorder.cancel()
        #expect(cancels.value == 1)
    }

    @Test func replaceErrorEndsWithTheValue() {
        #expect(FlowRecorder(marbleFlow("a#", failure: TestError()).replaceError(with: "z")).events == marbles("az|"))
    }
}
