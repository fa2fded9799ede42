import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("Completion blocks → Flow", .timeLimit(.minutes(1)))
struct FlowCallbacksTests {
    @Test(arguments: [false, true])
    func everyShapeGivesOneValueThenFinished(synchronous: Bool) async {
        let api = LegacyAPI(synchronous: synchronous)
        let user = FlowRecorder(Flow { api.user(id: 1, completion: $0) })
        let failedUser = FlowRecorder(Flow { api.user(id: -1, completion: $0) })
        let data = FlowRecorder(Flow { api.data(id: 2, completion: $0) })
        let saved = FlowRecorder(Flow { api.save(failing: false, completion: $0) })
        let status = FlowRecorder(Flow.neverFailing { api.status(completion: $0) })
        let ping = FlowRecorder(Flow { api.ping(completion: $0) })
        for recorder in [user.waitForCompletion, failedUser.waitForCompletion, data.waitForCompletion,
                         saved.waitForCompletion, status.waitForCompletion, ping.waitForCompletion] {
            await recorder()
        }
        #expect(user.events == [.value("user1"), .finished])
        #expect(failedUser.events == [.failure(TestError(code: -1))])
        #expect(data.values == ["data2"] && data.isCompleted)
        #expect(saved.values.count == 1 && saved.isCompleted)
        #expect(status.events == [.value(200), .finished])
        #expect(ping.values.count == 1 && ping.isCompleted)
    }

    @Test func eachSubscriptionMakesItsOwnCall() {
        let calls = AtomicCounter()
        let flow = Flow<Int, TestError> { completion in
            calls.increment()
            completion(.success(calls.value))
        }
        #expect(FlowRecorder(flow).values == [1])
        #expect(FlowRecorder(flow).values == [2])
    }

    @Test func cancellingTheSubscriptionRunsTheCancelActionOnce() {
        let operation = PendingOperation<Result<Int, TestError>>()
        let recorder = FlowRecorder(Flow<Int, TestError> { completion in
            operation.start(completion)
            return { operation.cancel() }
        })
        recorder.cancel()
        recorder.cancel()
        #expect(operation.cancels == 1)
        #expect(recorder.events == [])
    }
}
