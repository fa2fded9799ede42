import AsyncBridge
import AsyncBridgeTesting
import Dispatch
import Testing

// From the review of Flow+Receive.swift and MainActorFlow.swift: each test states a promise of
// their doc comments (or of the README's Guarantees) that the first version did not keep, and
// failed on it.

@Suite("Flow: receive(on:) and MainActorFlow at their edges", .timeLimit(.minutes(1)))
struct FlowReceiveReviewTests {
    /// A block delivers what had arrived when it started: a handler that sends into its own
    /// source (or a producer that keeps sending) does not hold the main queue, and work enqueued
    /// on it meanwhile runs before the next value. Failed on the first version of the hop, which
    /// drained the buffer until it was empty: `[value 1, value 2, value 3, other 1, other 2]`.
    @Test @MainActor func eventsThatArriveDuringADeliveryWaitBehindOtherMainQueueWork() async {
        let order = Box<[String]>([])
        let subject = LiveSubject<Int, Never>()
        let token = subject.flow.receive(on: MainActor.shared)
            .subscribe(onValue: { value in
                order.mutate { $0.append("value \(value)") }
                guard value < 3 else { return }
                DispatchQueue.main.async { order.mutate { $0.append("other \(value)") } }
                subject.send(value + 1)
            }, onCompletion: { _ in })
        subject.send(1)
        for _ in 0..<4 { await waitForMainQueue() }
        #expect(order.value == ["value 1", "other 1", "value 2", "other 2", "value 3"])
        token.cancel()
    }

    /// `driver()`'s doc: "shared by all its subscribers (who get the latest value at once)".
    /// A subscriber that joins on the main actor gets the replayed latest value only in a later
    /// main-queue block (the share sits before the hop, so its replay goes through the hop):
    /// right after subscribing, its state is still empty. RxCocoa's Driver
    /// (`observe(on: main).share(replay: 1)`) replays synchronously to a subscriber on main.
    @Test @MainActor func aLateDriverSubscriberGetsTheLatestValueAtOnce() async {
        let subject = LiveSubject<String, Never>()
        let driver = subject.flow.driver()
        let bag = CancellationBag()
        let first = Box<[String]>([])
        driver.subscribe(onValue: { value in first.mutate { $0.append(value) } }, onCompletion: { _ in })
            .store(in: bag)
        subject.send("latest")
        await waitForMainQueue()
        #expect(first.value == ["latest"])
        let late = Box<[String]>([])
        driver.subscribe(onValue: { value in late.mutate { $0.append(value) } }, onCompletion: { _ in })
            .store(in: bag)
        #expect(late.value == ["latest"], "the late subscriber did not get the latest value at once")
        await waitForMainQueue()
        bag.cancelAll()
    }

    /// Guarantee 2 (README): cancelling "releases what the chain holds" (and 5: nothing
    /// retains the subscriber after cancellation). A delivery block already scheduled on a busy
    /// (or suspended) queue keeps the FlowHop, and through its `downstream` the user's handler
    /// and everything it captures, until the queue runs it: forever on a suspended queue.
    @Test func aCancelReleasesTheHandlerWhileTheTargetQueueIsBusy() {
        let target = DispatchQueue(label: "busy target")
        let gate = DispatchSemaphore(value: 0)
        target.async { gate.wait() }  // the queue is busy until the end of the test
        let subject = LiveSubject<Int, Never>()
        weak var captured: Tracked?
        let token: CancellationToken
        do {
            let tracked = Tracked()
            captured = tracked
            token = subject.flow.receive(on: target).subscribe { _ in withExtendedLifetime(tracked) {} }
        }
        subject.send(1)  // a delivery block now waits for the queue
        token.cancel()
        #expect(captured == nil, "the cancelled subscription's handler is still retained by the scheduled delivery")
        gate.signal()
        target.sync {}
    }
}
