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
        let recorder = FlowRecorder(Flow<Int, TestError> { completion, onCancel in
            operation.start(completion)
            onCancel { operation.cancel() }
        })
        recorder.cancel()
        recorder.cancel()
        #expect(operation.cancels == 1)
        #expect(recorder.events == [])
    }
    // A block released without being called, behind each initialiser: the flow fails with
    // completionNeverCalled where its Failure can hold it and finishes without a value where it
    // cannot, and the report names the initialiser, its call site and which of the two happened.

    typealias ResultBlock<Failure: Error> = @Sendable (Result<Int, Failure>) -> Void
    typealias ValueOrErrorBlock = @Sendable (Int?, (any Error)?) -> Void
    typealias ErrorBlock = @Sendable ((any Error)?) -> Void

    @Test func aDroppedResultBlockFailsAnUntypedFlow() {
        let recorder = MisuseRecorder()
        let (plain, plainLine) = (Flow<Int, any Error> { (_: @escaping ResultBlock<any Error>) in }, #line)
        let (cancellable, cancellableLine) = (Flow<Int, any Error> { (_: @escaping ResultBlock<any Error>, _) in }, #line)
        for flow in [plain, cancellable] {
            #expect(recorder.record { FlowRecorder(flow).events }.isCompletionNeverCalled())
        }
        #expect(recorder.expectable == reported([
            ExpectedReport(.completionNeverCalled, "Flow(_:)", line: plainLine, flowFailedBroken),
            ExpectedReport(.completionNeverCalled, "Flow(_:)", line: cancellableLine, flowFailedBroken),
        ]))
    }

    @Test func aDroppedResultBlockFinishesATypedFlowWithoutAValue() async {
        let recorder = MisuseRecorder()
        let (plain, plainLine) = (Flow<Int, TestError> { (_: @escaping ResultBlock<TestError>) in }, #line)
        let (cancellable, cancellableLine) = (Flow<Int, TestError> { (_: @escaping ResultBlock<TestError>, _) in }, #line)
        for flow in [plain, cancellable] {
            #expect(recorder.record { FlowRecorder(flow).events } == [.finished])
            // What the issue's view model met: the awaited value is missing, not failed.
            await #expect(throws: AsyncBridgeError.noValue) { try await recorder.record { try await flow.firstValue } }
        }
        let finished = flowFinished("TestError")
        #expect(recorder.expectable == reported([
            ExpectedReport(.completionNeverCalled, "Flow(_:)", line: plainLine, finished),
            ExpectedReport(.completionNeverCalled, "Flow(_:)", line: plainLine, finished),
            ExpectedReport(.completionNeverCalled, "Flow(_:)", line: cancellableLine, finished),
            ExpectedReport(.completionNeverCalled, "Flow(_:)", line: cancellableLine, finished),
        ]))
    }

    @Test func aDroppedValueOrErrorBlockFailsTheFlow() {
        let recorder = MisuseRecorder()
        let (plain, plainLine) = (Flow<Int, any Error> { (_: @escaping ValueOrErrorBlock) in }, #line)
        let (cancellable, cancellableLine) = (Flow<Int, any Error> { (_: @escaping ValueOrErrorBlock, _) in }, #line)
        for flow in [plain, cancellable] {
            #expect(recorder.record { FlowRecorder(flow).events }.isCompletionNeverCalled())
        }
        #expect(recorder.expectable == reported([
            ExpectedReport(.completionNeverCalled, "Flow(_:)", line: plainLine, flowFailedBroken),
            ExpectedReport(.completionNeverCalled, "Flow(_:)", line: cancellableLine, flowFailedBroken),
        ]))
    }

    @Test func aDroppedErrorBlockFailsTheFlow() {
        let recorder = MisuseRecorder()
        let (plain, plainLine) = (Flow<Void, any Error> { (_: @escaping ErrorBlock) in }, #line)
        let (cancellable, cancellableLine) = (Flow<Void, any Error> { (_: @escaping ErrorBlock, _) in }, #line)
        for flow in [plain, cancellable] {
            #expect(recorder.record { FlowRecorder(flow).events }.isCompletionNeverCalled())
        }
        #expect(recorder.expectable == reported([
            ExpectedReport(.completionNeverCalled, "Flow(_:)", line: plainLine, flowFailedBroken),
            ExpectedReport(.completionNeverCalled, "Flow(_:)", line: cancellableLine, flowFailedBroken),
        ]))
    }

    @Test func aDroppedValueBlockFinishesTheNeverFailingFlowWithoutAValue() {
        let recorder = MisuseRecorder()
        let (plain, plainLine) = (Flow<Int, Never>.neverFailing { _ in }, #line)
        let (cancellable, cancellableLine) = (Flow<Int, Never>.neverFailing { _, _ in }, #line)
        for flow in [plain, cancellable] {
            #expect(recorder.record { FlowRecorder(flow).events } == [.finished])
        }
        #expect(recorder.expectable == reported([
            ExpectedReport(.completionNeverCalled, "Flow.neverFailing(_:)", line: plainLine, flowFinished("Never")),
            ExpectedReport(.completionNeverCalled, "Flow.neverFailing(_:)", line: cancellableLine, flowFinished("Never")),
        ]))
    }

    @Test func aDroppedSignalBlockFinishesTheFlowWithoutAValue() {
        let recorder = MisuseRecorder()
        let (plain, plainLine) = (Flow<Void, Never> { (_: @escaping @Sendable () -> Void) in }, #line)
        let (cancellable, cancellableLine) = (Flow<Void, Never> { (_: @escaping @Sendable () -> Void, _) in }, #line)
        for flow in [plain, cancellable] {
            let events = recorder.record { FlowRecorder(flow).events }
            guard events.count == 1, case .finished = events[0] else {
                Issue.record("expected only .finished, got \(events)")
                continue
            }
        }
        #expect(recorder.expectable == reported([
            ExpectedReport(.completionNeverCalled, "Flow(_:)", line: plainLine, flowFinished("Never")),
            ExpectedReport(.completionNeverCalled, "Flow(_:)", line: cancellableLine, flowFinished("Never")),
        ]))
    }
}

extension Array {
    /// A single failure with `AsyncBridgeError.completionNeverCalled`.
    func isCompletionNeverCalled<Value>() -> Bool where Element == FlowEvent<Value, any Error> {
        guard count == 1, case .failure(let error) = self[0] else { return false }
        return error as? AsyncBridgeError == .completionNeverCalled
    }
}
