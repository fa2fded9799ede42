import Dispatch
import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("LatestValueSubject", .timeLimit(.minutes(1)))
struct BehaviorSubjectTests {
    @Test func aSubscriberGetsTheCurrentValueFirstThenWhatIsSent() {
        let subject = LatestValueSubject<Int, TestError>(value: 0)
        let first = FlowRecorder(subject.flow)
        subject.send(1)
        subject.send(2)
        let second = FlowRecorder(subject.flow)
        subject.send(3)
        subject.finish()
        #expect(first.events == [.value(0), .value(1), .value(2), .value(3), .finished])
        #expect(second.events == [.value(2), .value(3), .finished])
    }

    @Test func valueIsTheLatestSentAndOutlivesTheCompletion() {
        let subject = LatestValueSubject<String, TestError>(value: "a")
        #expect(subject.value == "a")
        subject.send("b")
        #expect(subject.value == "b")
        subject.fail(TestError())
        subject.send("c")  // ignored
        #expect(subject.value == "b")
    }

    @Test func aLateSubscriberGetsTheCompletionAloneAsInRxSwiftAndCombine() {
        let finished = LatestValueSubject<Int, TestError>(value: 0)
        finished.send(1)
        finished.finish()
        let failed = LatestValueSubject<Int, TestError>(value: 0)
        failed.fail(TestError(code: 3))
        #expect(FlowRecorder(finished.flow).events == [.finished])
        #expect(FlowRecorder(failed.flow).events == [.failure(TestError(code: 3))])
    }

    @Test func cancellingStopsDelivery() {
        let subject = LatestValueSubject<Int, Never>(value: 0)
        let recorder = FlowRecorder(subject.flow)
        subject.send(1)
        recorder.cancel()
        subject.send(2)
        subject.finish()
        #expect(recorder.events == [.value(0), .value(1)])
    }

    @Test func valueReflectsASendAtOnceWhileAnotherThreadIsStillDelivering() async {
        let subject = LatestValueSubject<Int, Never>(value: 0)
        let entered = CompletionSpy<Void>()
        let proceed = DispatchSemaphore(value: 0)
        let slow = Box<[Int]>([])
        let token = subject.flow.subscribe(onValue: { value in
            slow.value.append(value)
            if value == 1 {
                entered.record(())
                proceed.wait()
            }
        }, onCompletion: { _ in })
        let sent = CompletionSpy<Void>()
        // A thread of its own: blocking it must not take one from the shared pool.
        DispatchQueue(label: "sender").async {
            subject.send(1)
            sent.record(())
        }
        await entered.firstCall()  // the other thread is delivering 1, held in the handler
        subject.send(2)  // queued behind 1, returns at once
        #expect(subject.value == 2)
        let late = FlowRecorder(subject.flow)  // its current value waits for its turn
        #expect(late.values == [])
        proceed.signal()
        await sent.firstCall()  // the delivering thread has worked through the queue
        #expect(slow.value == [0, 1, 2])
        #expect(late.values == [2], "the current value when it subscribed, once, and nothing missed")
        token.cancel()
    }
}
