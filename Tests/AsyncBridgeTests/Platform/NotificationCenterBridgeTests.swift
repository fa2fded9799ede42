import Foundation
import Testing
@_spi(AsyncBridgeInternals) import AsyncBridge
import AsyncBridgeTesting

/// `NotificationCenter` observations, a real multi-shot callback API, bridged with `Flow.create`:
/// the observer is added when a subscription starts and removed when it is cancelled.
func notificationValues(_ center: NotificationCenter, named name: Notification.Name) -> Flow<Int, Never> {
    Flow.create { emitter in
        // The observation token is only handed back to `removeObserver`, which is thread-safe;
        // Foundation does not mark it Sendable.
        nonisolated(unsafe) let observer = center.addObserver(forName: name, object: nil, queue: nil) { notification in
            emitter.send(notification.userInfo?["value"] as? Int ?? -1)
        }
        return { center.removeObserver(observer) }
    }
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
}
