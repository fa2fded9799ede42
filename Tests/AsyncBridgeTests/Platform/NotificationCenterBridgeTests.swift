import AsyncBridge
import AsyncBridgeFoundation
import AsyncBridgeTesting
import Dispatch
import Foundation
import Testing

/// `NotificationCenter` observations, a real multi-shot callback API, through
/// `NotificationCenter.flow(for:object:_:)`: the observer is added when a subscription starts
/// and removed when it is cancelled.
func notificationValues(_ center: NotificationCenter, named name: Notification.Name) -> Flow<Int, Never> {
    center.flow(for: name) { $0.userInfo?["value"] as? Int ?? -1 }
}

private let ticked = Notification.Name("AsyncBridgeTests.ticked")

private func post(_ value: Int, to center: NotificationCenter) {
    center.post(name: ticked, object: nil, userInfo: ["value": value])
}

@Suite("NotificationCenter ⇄ Flow", .timeLimit(.minutes(1)))
struct NotificationCenterBridgeTests {
    @Test func observationsArriveAsValuesInOrder() {
        let center = NotificationCenter()
        let recorder = FlowRecorder(notificationValues(center, named: ticked))
        for value in 1...3 { post(value, to: center) }
        #expect(recorder.events == [.value(1), .value(2), .value(3)])
    }

    @Test func nothingIsObservedBeforeSubscribingOrAfterCancelling() {
        let center = NotificationCenter()
        let flow = notificationValues(center, named: ticked)
        post(0, to: center)   // cold: no observer yet
        let recorder = FlowRecorder(flow)
        post(1, to: center)
        recorder.cancel()
        post(2, to: center)
        #expect(recorder.events == [.value(1)])
    }

    @Test func postsFromManyThreadsAreSerialisedAndNoneIsLost() async {
        let center = NotificationCenter()
        let recorder = FlowRecorder(notificationValues(center, named: ticked))
        let threads = 4, perThread = 500
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<threads {
                group.addTask {
                    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                        DispatchQueue(label: "poster-\(thread)").async {
                            for index in 0..<perThread { post(thread * perThread + index, to: center) }
                            done.resume()
                        }
                    }
                }
            }
        }
        await recorder.waitForValues(threads * perThread)
        let values = recorder.values
        #expect(Set(values) == Set(0..<threads * perThread))
        for thread in 0..<threads {   // each poster's order is kept
            let mine = values.filter { $0 / perThread == thread }
            #expect(mine == mine.sorted())
        }
    }

    @Test func aFlowCanDriveNotificationsToo() {
        let center = NotificationCenter()
        let recorder = FlowRecorder(notificationValues(center, named: ticked))
        let subject = LiveSubject<Int, Never>()
        let token = subject.flow.subscribe(onValue: { post($0, to: center) }, onCompletion: { _ in })
        subject.send(7)
        subject.send(8)
        token.cancel()
        subject.send(9)
        #expect(recorder.events == [.value(7), .value(8)])
    }

    @Test func observationsCanBeIteratedAsAnAsyncSequence() async {
        let center = NotificationCenter()
        // The observer is added when the iterator is made, before anything is posted.
        var iterator = notificationValues(center, named: ticked).values.makeAsyncIterator()
        DispatchQueue(label: "AsyncBridgeTests.poster").async {
            for value in 1...3 { post(value, to: center) }
        }
        var seen: [Int] = []
        while seen.count < 3, let value = await iterator.next() {   // no `try`: it cannot fail
            seen.append(value)
        }
        #expect(seen == [1, 2, 3])
    }

    @Test func theValueIsExtractedOnThePostingThread() async {
        let center = NotificationCenter()
        let poster = DispatchQueue(label: "AsyncBridgeTests.poster")
        let key = DispatchSpecificKey<Bool>()
        poster.setSpecific(key: key, value: true)
        let recorder = FlowRecorder(center.flow(for: ticked) { _ in DispatchQueue.getSpecific(key: key) == true })
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            poster.async {
                post(1, to: center)
                done.resume()
            }
        }
        #expect(recorder.values == [true])
    }

    @Test func onlyTheGivenSendersNotificationsWithAnObjectAllWithout() {
        let center = NotificationCenter()
        let a = Tracked(), b = Tracked()
        let fromA = FlowRecorder(center.flow(for: ticked, object: a))
        let fromAnyone = FlowRecorder(center.flow(for: ticked))
        center.post(name: ticked, object: a)
        center.post(name: ticked, object: b)
        center.post(name: Notification.Name("AsyncBridgeTests.other"), object: a)
        #expect(fromA.values.count == 1)
        #expect(fromAnyone.values.count == 2)
    }

    @Test func cancellingRemovesTheObserverAndLetsGoOfTheClosure() {
        let center = NotificationCenter()
        let extracted = AtomicCounter()
        expectReleased("a cancelled notification flow") { tracked in
            let recorder = FlowRecorder(center.flow(for: ticked) { _ in
                _ = tracked
                extracted.increment()
                return 0
            })
            post(1, to: center)
            recorder.cancel()
        }
        post(2, to: center)
        #expect(extracted.value == 1, "the observer was still there after cancel")
    }

    @Test @MainActor func handledOnTheMainActorWhenPostedFromAnotherThread() async {
        let center = NotificationCenter()
        let received = Box<[Int]>([])
        let token = notificationValues(center, named: ticked)
            .receive(on: MainActor.shared)
            .subscribe(onValue: { value in received.mutate { $0.append(value) } }, onCompletion: { _ in })
        DispatchQueue.global().sync { post(4, to: center) }
        #expect(received.value == [])
        await waitForMainQueue()
        #expect(received.value == [4])
        token.cancel()
    }
}
