import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("async closure → Flow", .timeLimit(.minutes(1)))
struct FlowAsyncTests {
    func typedOperation(_ value: Int) async throws(TestError) -> Int {
        if value < 0 { throw TestError(code: value) }
        return value
    }

    @Test func oneValueThenFinishedOrTheTypedFailure() async {
        let succeeding = Flow { () async throws(TestError) -> Int in try await typedOperation(3) }
        let failing = Flow { () async throws(TestError) -> Int in try await typedOperation(-3) }
        let ok = FlowRecorder(succeeding), failed = FlowRecorder(failing)
        await ok.waitForCompletion()
        await failed.waitForCompletion()
        #expect(ok.events == [.value(3), .finished])
        #expect(failed.events == [.failure(TestError(code: -3))])
    }

    @Test func theCommonCallSitesPickTheIntendedInitialiser() async throws {
        let api = LegacyAPI()
        // No parameter, no `throws`: the async closure, Failure == Never.
        let neverFailing = Flow { await Task.yield(); return 1 }
        let _: Flow<Int, Never> = neverFailing
        // `try` without a type: the async closure, Failure == any Error.
        let untyped = Flow { try await typedOperation(2) }
        let _: Flow<Int, any Error> = untyped
        // A completion block as `$0`: the completion-block initialisers, as before.
        let result = Flow { api.user(id: 1, completion: $0) }
        let _: Flow<String, TestError> = result
        let objectiveC = Flow { api.data(id: 1, completion: $0) }
        let _: Flow<String, any Error> = objectiveC
        let void = Flow { api.ping(completion: $0) }
        let _: Flow<Void, Never> = void
        #expect(try await neverFailing.singleValue == 1)
        #expect(try await untyped.singleValue == 2)
        #expect(try await result.singleValue == "user1")
        #expect(try await objectiveC.singleValue == "data1")
    }

    @Test func eachSubscriptionRunsTheClosureAgain() async throws {
        let runs = AtomicCounter()
        let flow = Flow { () async -> Int in
            runs.increment()
            return runs.value
        }
        #expect(runs.value == 0, "lazy")
        #expect(try await flow.firstValue == 1)
        #expect(try await flow.firstValue == 2)
    }

    @Test func cancellingTheSubscriptionCancelsTheTask() async {
        let gate = CancellationGate()
        let flow = Flow { () async -> Int in
            await gate.waitForCancellation()
            return 0
        }
        let recorder = FlowRecorder(flow)
        await gate.suspended.firstCall()
        recorder.cancel()
        await gate.sawCancellation.firstCall()
        #expect(recorder.events == [])
    }
}
