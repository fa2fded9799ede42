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
}
