import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("Flow.retry() and retry(when:)", .timeLimit(.minutes(1)))
struct FlowRetryWhenTests {
    /// A source that fails synchronously `failures` times, then sends 1 and finishes.
    static func failingSynchronously(_ failures: Int, subscriptions: AtomicCounter) -> Flow<Int, TestError> {
        Flow.deferred {
            subscriptions.increment()
            return subscriptions.value <= failures ? .fail(TestError(code: subscriptions.value)) : .just(1)
        }
    }

    /// A trigger that sends at once for every failure.
    @Sendable static func atOnce(_ failures: Flow<TestError, Never>) -> Flow<Int, TestError> {
        failures.map { $0.code }.setFailureType(to: TestError.self)
    }

    // MARK: retry()

    @Test func retryForeverRunsSynchronousFailuresInConstantStackDepth() {
        let subscriptions = AtomicCounter()
        let recorder = FlowRecorder(Self.failingSynchronously(100_000, subscriptions: subscriptions).retry())
        #expect(recorder.events == [.value(1), .finished])
        #expect(subscriptions.value == 100_001)
    }

    @Test func retryForeverResubscribesUntilCancelled() {
        let source = Resubscribable<Int>()
        let recorder = FlowRecorder(source.flow.retry())
        for code in 1...50 { source.latest?.fail(TestError(code: code)) }
        source.latest?.send(7)
        recorder.cancel()
        source.latest?.fail(TestError())
        #expect(recorder.events == [.value(7)])
        #expect(source.subscriptions == 51 && source.cancels.value == 1)
    }

    // MARK: retry(when:)

    @Test func aTriggerValueResubscribesAndTheHandlerSeesEachFailureTyped() {
        let source = Resubscribable<Int>()
        let trigger = LiveSubject<Void, TestError>()
        let seen = Box<[TestError]>([])
        let handlerCalls = AtomicCounter()
        let recorder = FlowRecorder(source.flow.retry { failures in
            handlerCalls.increment()
            return failures.setFailureType(to: TestError.self)
                .handleEvents(onValue: { error in seen.mutate { $0.append(error) } })
                .flatMap { _ in trigger.flow.first() }
        })
        source.latest?.send(1)
        source.latest?.fail(TestError(code: 1))
        #expect(source.subscriptions == 1, "the failure waits for the trigger")
        trigger.send(())
        #expect(source.subscriptions == 2)
        source.latest?.send(2)
        source.latest?.fail(TestError(code: 2))
        trigger.send(())
        source.latest?.send(3)
        source.latest?.finish()
        #expect(recorder.events == [.value(1), .value(2), .value(3), .finished])
        #expect(seen.value == [TestError(code: 1), TestError(code: 2)])
        #expect(source.subscriptions == 3 && source.cancels.value == 0)
        #expect(handlerCalls.value == 1, "once per subscription")
    }

    @Test func aTriggerValueWhileAnAttemptRunsIsIgnored() {
        let source = Resubscribable<Int>()
        let trigger = LiveSubject<Void, TestError>()
        let recorder = FlowRecorder(source.flow.retry { _ in trigger.flow })
        trigger.send(())
        #expect(source.subscriptions == 1)
        source.latest?.fail(TestError())
        trigger.send(())
        trigger.send(())
        #expect(source.subscriptions == 2, "one failure, one retry")
        #expect(recorder.events.isEmpty)
    }

    @Test(arguments: [FlowCompletion<TestError>.finished, .failure(TestError(code: 42))])
    func theTriggersCompletionEndsAWaitingFailureWithThatCompletion(_ completion: FlowCompletion<TestError>) {
        let source = Resubscribable<Int>()
        let trigger = LiveSubject<Void, TestError>()
        let recorder = FlowRecorder(source.flow.retry { _ in trigger.flow })
        source.latest?.send(1)
        source.latest?.fail(TestError(code: 1))
        switch completion {
        case .finished: trigger.finish()
        case .failure(let error): trigger.fail(error)
        }
        #expect(recorder.events == [.value(1), FlowEvent(completion)])
        #expect(source.subscriptions == 1)
    }

    @Test func theTriggersCompletionDuringAnAttemptWaitsForItsEnd() {
        let source = Resubscribable<Int>()
        let trigger = LiveSubject<Void, TestError>()
        let flow = source.flow.retry { _ in trigger.flow }
        let finishing = FlowRecorder(flow)
        trigger.fail(TestError(code: 42))
        source.latest?.send(1)
        source.latest?.finish()
        #expect(finishing.events == [.value(1), .finished], "an attempt that finishes finishes the result")

        let trigger2 = LiveSubject<Void, TestError>()
        let source2 = Resubscribable<Int>()
        let failing = FlowRecorder(source2.flow.retry { _ in trigger2.flow })
        trigger2.fail(TestError(code: 42))
        source2.latest?.send(1)
        source2.latest?.fail(TestError(code: 1))
        #expect(failing.events == [.value(1), .failure(TestError(code: 42))], "its failure ends with the trigger's completion")
        #expect(source2.subscriptions == 1)
    }

    @Test func anEmptyTriggerFinishesAtTheFirstFailure() {
        let recorder = FlowRecorder(marbleFlow("ab#", failure: TestError()).retry { _ in Flow<Void, TestError>.empty })
        #expect(recorder.events == marbles("ab|"))
    }

    @Test func cancellingCancelsTheAttemptAndTheTriggerAndDeliversNothingMore() {
        let source = Resubscribable<Int>()
        let trigger = LiveSubject<Void, TestError>()
        let triggerCancels = AtomicCounter()
        let recorder = FlowRecorder(source.flow.retry { _ in trigger.flow.handleEvents(onCancel: { triggerCancels.increment() }) })
        source.latest?.fail(TestError())
        trigger.send(())
        source.latest?.send(1)
        recorder.cancel()
        source.latest?.send(2)
        source.latest?.fail(TestError())
        trigger.send(())
        #expect(recorder.events == [.value(1)])
        #expect(source.cancels.value == 1 && triggerCancels.value == 1)
        #expect(source.subscriptions == 2)
    }

    @Test func aSubscriberThatStopsCancelsTheAttemptAndTheTrigger() {
        let source = Resubscribable<Int>()
        let triggerCancels = AtomicCounter()
        let recorder = FlowRecorder(source.flow.retry { Self.atOnce($0).handleEvents(onCancel: { triggerCancels.increment() }) }.prefix(2))
        source.latest?.send(1)
        source.latest?.fail(TestError())
        source.latest?.send(2)
        #expect(recorder.events == [.value(1), .value(2), .finished])
        #expect(source.cancels.value == 1 && triggerCancels.value == 1)
    }

    @Test func synchronousFailuresWithASynchronousTriggerRunInConstantStackDepth() {
        let subscriptions = AtomicCounter()
        let recorder = FlowRecorder(Self.failingSynchronously(100_000, subscriptions: subscriptions).retry(when: Self.atOnce))
        #expect(recorder.events == [.value(1), .finished])
        #expect(subscriptions.value == 100_001)
    }

    // MARK: leaks

    static let operators: [(String, @Sendable (Flow<Int, TestError>, Tracked) -> Flow<Int, TestError>)] = [
        ("retry()", { flow, t in flow.map { _ = t; return $0 }.retry() }),
        ("retry(when:)", { flow, t in flow.retry { _ = t; return atOnce($0) } }),
        ("retry(when:), a trigger holding the object", { flow, t in flow.retry { atOnce($0).map { _ = t; return $0 } } }),
        ("retry(when:), an upstream holding the object", { flow, t in flow.map { _ = t; return $0 }.retry(when: atOnce) }),
    ]

    @Test(arguments: operators.map(\.0), [false, true])
    func releasesAfterCompletionOrCancellation(_ name: String, cancelling: Bool) throws {
        let build = try #require(Self.operators.first { $0.0 == name }?.1)
        let source = Resubscribable<Int>()
        expectReleased("\(name) after \(cancelling ? "cancellation" : "completion")") { tracked in
            let recorder = FlowRecorder(build(source.flow, tracked))
            source.latest?.fail(TestError())
            source.latest?.send(1)
            if cancelling { recorder.cancel() } else { source.latest?.finish() }
            #expect(recorder.events == (cancelling ? [.value(1)] : [.value(1), .finished]), "\(name)")
        }
        #expect(source.cancels.value == (cancelling ? 1 : 0), "\(name)")
    }
}
