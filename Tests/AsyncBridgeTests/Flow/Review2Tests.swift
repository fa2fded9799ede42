import Testing
import AsyncBridge
import AsyncBridgeTesting

/// Defects found in review of the operators added with reduce, collect, materialize, the
/// `try…` transforms, using, debug, the time sources and retry(when:): each test failed before
/// its fix.
@Suite("Review 2: reducing, collecting, time sources, retry(when:)", .timeLimit(.minutes(1)))
struct Review2Tests {
    @Test func collectCountSendsNothingAfterASubscriberCancelsOnTheLastArray() {
        let source = ManualFlow<Int>()
        let events = eventsCancellingOnFirstValue(source.flow.collect(2)) {
            source.send(1)
            source.finish()
        }
        #expect(events == [.value([1])], "the finish came after the cancellation had returned")
    }

    @Test func retryWhenStopsASynchronousAttemptWhenTheSubscriberWantsNoMore() {
        let subscriptions = AtomicCounter()
        let produced = AtomicCounter()
        let source = Flow<Int, TestError>.deferred {
            subscriptions.increment()
            guard subscriptions.value > 1 else { return .fail(TestError()) }
            return Flow.sequence(0..<1_000).handleEvents(onValue: { _ in produced.increment() })
        }
        let recorder = FlowRecorder(source.retry(when: FlowRetryWhenTests.atOnce).prefix(3))
        #expect(recorder.events == [.value(0), .value(1), .value(2), .finished])
        #expect(produced.value == 3, "the retried attempt ran to its end, its values queued")
    }
}
