import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("Flow sources", .timeLimit(.minutes(1)))
struct FlowSourcesTests {
    @Test func justEmptyNeverFail() {
        #expect(FlowRecorder(Flow<Int, TestError>.just(1)).events == [.value(1), .finished])
        #expect(FlowRecorder(Flow<Int, TestError>.empty).events == [.finished])
        #expect(FlowRecorder(Flow<Int, TestError>.never).events == [])
        #expect(FlowRecorder(Flow<Int, TestError>.fail(TestError(code: 2))).events == [.failure(TestError(code: 2))])
    }

    @Test func sequenceSendsEveryElementThenFinishes() {
        #expect(FlowRecorder(Flow<Int, Never>.sequence(1...4)).events == [.value(1), .value(2), .value(3), .value(4), .finished])
    }

    @Test func deferredBuildsAFlowPerSubscription() {
        let builds = AtomicCounter()
        let flow = Flow<Int, Never>.deferred {
            builds.increment()
            return .just(builds.value)
        }
        #expect(builds.value == 0)
        #expect(FlowRecorder(flow).values == [1])
        #expect(FlowRecorder(flow).values == [2])
    }

    @Test func aResultIsOneValueOrAFailure() {
        #expect(FlowRecorder(Flow(Result<Int, TestError>.success(1))).events == [.value(1), .finished])
        #expect(FlowRecorder(Flow(Result<Int, TestError>.failure(TestError()))).events == [.failure(TestError())])
    }

    @Test func aFutureIsSharedAndCancellingOneSubscriptionLeavesIt() async {
        let operation = PendingOperation<Result<Int, TestError>>()
        let future = SharedFuture<Int, TestError> { completion, onCancel in
            operation.start(completion)
            onCancel { operation.cancel() }
        }
        let first = FlowRecorder(Flow(future))
        let second = FlowRecorder(Flow(future))
        first.cancel()
        #expect(operation.starts == 1 && operation.cancels == 0)
        operation.complete(.success(3))
        #expect(first.events == [])
        #expect(second.events == [.value(3), .finished])
        let late = FlowRecorder(Flow(future))
        #expect(late.events == [.value(3), .finished], "memoised")
    }

    @Test func cancellingTheOnlySubscriptionCancelsTheFuturesOperation() {
        let operation = PendingOperation<Result<Int, TestError>>()
        let recorder = FlowRecorder(Flow(SharedFuture<Int, TestError> { completion, onCancel in
            operation.start(completion)
            onCancel { operation.cancel() }
        }))
        recorder.cancel()
        #expect(operation.cancels == 1)
    }

    @Test func aBrokenFutureFailsAnUntypedFlowAndFinishesATypedOne() {
        let untyped = MisuseRecorder().record { SharedFuture<Int, any Error> { (_: @escaping @Sendable (Result<Int, any Error>) -> Void) in } }
        let typed = MisuseRecorder().record { SharedFuture<Int, TestError> { _ in } }
        let untypedEvents = FlowRecorder(Flow(untyped)).events
        #expect(untypedEvents.count == 1)
        if case .failure(let error)? = untypedEvents.first {
            #expect(error as? AsyncBridgeError == .completionNeverCalled)
        } else {
            Issue.record("expected a failure, got \(untypedEvents)")
        }
        #expect(FlowRecorder(Flow(typed)).events == [.finished])
    }
}
