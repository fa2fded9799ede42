import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("LiveSubject", .timeLimit(.minutes(1)))
struct PublishSubjectTests {
    @Test func subscribersGetWhatIsSentAfterThemThenTheFinish() {
        let subject = LiveSubject<Int, TestError>()
        subject.send(0)  // nobody listens yet: lost, as in RxSwift and Combine
        let early = FlowRecorder(subject.flow)
        subject.send(1)
        let later = FlowRecorder(subject.flow)
        subject.send(2)
        subject.finish()
        subject.send(3)
        subject.fail(TestError())
        #expect(early.events == [.value(1), .value(2), .finished])
        #expect(later.events == [.value(2), .finished])
    }

    @Test func aFailureReachesEverySubscriberOnce() {
        let subject = LiveSubject<Int, TestError>()
        let first = FlowRecorder(subject.flow)
        let second = FlowRecorder(subject.flow.map { $0 * 10 })
        subject.send(1)
        subject.fail(TestError(code: 7))
        subject.finish()
        #expect(first.events == [.value(1), .failure(TestError(code: 7))])
        #expect(second.events == [.value(10), .failure(TestError(code: 7))])
    }

    @Test func aLateSubscriberGetsTheCompletionAtOnce() {
        let finished = LiveSubject<Int, TestError>()
        finished.send(1)
        finished.finish()
        let failed = LiveSubject<Int, TestError>()
        failed.fail(TestError(code: 2))
        #expect(FlowRecorder(finished.flow).events == [.finished])
        #expect(FlowRecorder(failed.flow).events == [.failure(TestError(code: 2))])
    }

    @Test func cancellingStopsDeliveryToThatSubscriberOnly() {
        let subject = LiveSubject<Int, Never>()
        let cancelled = FlowRecorder(subject.flow)
        let kept = FlowRecorder(subject.flow)
        subject.send(1)
        cancelled.cancel()
        subject.send(2)
        subject.finish()
        #expect(cancelled.events == [.value(1)])
        #expect(kept.events == [.value(1), .value(2), .finished])
    }

    @Test func aSubjectIsASubjectToGenericCode() {
        func report<S: FlowSubject>(_ steps: [Double], to subject: S) where S.Element == Double {
            for step in steps { subject.send(step) }
            subject.finish()
        }
        let subject = LiveSubject<Double, Never>()
        let recorder = FlowRecorder(subject.flow)
        report([0.5, 1], to: subject)
        #expect(recorder.events == [.value(0.5), .value(1), .finished])
    }
}
