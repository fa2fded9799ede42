import Dispatch
import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("ReplayingSubject", .timeLimit(.minutes(1)))
struct ReplaySubjectTests {
    @Test func aNewSubscriberGetsUpToBufferSizeLatestValuesInOrder() {
        let subject = ReplayingSubject<Int, Never>(bufferSize: 3)
        #expect(FlowRecorder(subject.flow).events == [])
        subject.send(1)
        subject.send(2)
        #expect(FlowRecorder(subject.flow).values == [1, 2])
        for value in 3...10 { subject.send(value) }  // the buffer wraps around several times
        let recorder = FlowRecorder(subject.flow)
        subject.send(11)
        #expect(recorder.values == [8, 9, 10, 11])
    }

    @Test func afterTheCompletionALateSubscriberGetsTheBufferThenTheCompletion() {
        let finished = ReplayingSubject<Int, TestError>(bufferSize: 2)
        for value in 1...3 { finished.send(value) }
        finished.finish()
        finished.send(4)
        let failed = ReplayingSubject<Int, TestError>(bufferSize: 2)
        failed.send(1)
        failed.fail(TestError(code: 5))
        #expect(FlowRecorder(finished.flow).events == [.value(2), .value(3), .finished])
        #expect(FlowRecorder(failed.flow).events == [.value(1), .failure(TestError(code: 5))])
    }

    @Test func bufferSizeZeroReplaysNothingAndUnboundedReplaysAll() {
        let none = ReplayingSubject<Int, Never>(bufferSize: 0)
        let all = ReplayingSubject<Int, Never>(bufferSize: .max)
        for value in 1...5 {
            none.send(value)
            all.send(value)
        }
        none.finish()
        #expect(FlowRecorder(none.flow).events == [.finished])
        #expect(FlowRecorder(all.flow).values == [1, 2, 3, 4, 5])
    }

    @Test func aSubscriberThatJoinsFromAHandlerAndCancelsDuringItsReplayNeverJoins() {
        let subject = ReplayingSubject<Int, Never>(bufferSize: 5)
        for value in 1...3 { subject.send(value) }
        let lateToken = Box<CancellationToken?>(nil)
        let late = Box<[Int]>([])
        let trigger = subject.flow.subscribe(onValue: { value in
            guard value == 4 else { return }
            // Subscribing from inside a delivery queues the replay behind it, so the token
            // exists before the replay starts, and the replay can be cancelled midway.
            lateToken.value = subject.flow.subscribe(onValue: { value in
                late.value.append(value)
                if value == 2 { lateToken.value?.cancel() }
            }, onCompletion: { _ in })
            #expect(late.value == [], "the replay comes after the current delivery")
        }, onCompletion: { _ in })
        subject.send(4)
        subject.send(5)
        #expect(late.value == [1, 2])
        trigger.cancel()
    }

    @Test func aSendFromInsideAReplayComesAfterTheReplayForEverySubscriber() {
        let subject = ReplayingSubject<Int, Never>(bufferSize: 2)
        let existing = FlowRecorder(subject.flow)
        subject.send(1)
        subject.send(2)
        let joining = Box<[Int]>([])
        _ = subject.flow.subscribe(onValue: { value in
            joining.value.append(value)
            if value == 1 { subject.send(3) }  // re-entrant, during the replay
        }, onCompletion: { _ in })
        #expect(joining.value == [1, 2, 3])
        #expect(existing.values == [1, 2, 3])
    }

    @Test func aSubscriberJoiningWhileAnotherThreadDeliversGetsItsReplayInItsPlace() async {
        let subject = ReplayingSubject<Int, Never>(bufferSize: 10)
        let entered = CompletionSpy<Void>()
        let proceed = DispatchSemaphore(value: 0)
        let first = Box<[Int]>([])
        let token = subject.flow.subscribe(onValue: { value in
            first.value.append(value)
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
        let late = FlowRecorder(subject.flow)  // queued behind 1, with the buffer [1]
        subject.send(2)  // queued behind the late subscriber
        subject.finish()
        #expect(late.events == [], "its replay waits for its turn")
        proceed.signal()
        await sent.firstCall()  // the delivering thread has worked through the queue
        #expect(first.value == [1, 2])
        #expect(late.events == [.value(1), .value(2), .finished], "no gap, no duplicate, in order")
        token.cancel()
    }
}
