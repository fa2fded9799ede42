import AsyncBridge
import AsyncBridgeOpenCombine
import Dispatch
import OpenCombine
import Testing

@Suite("Flow → Combine: publisher(bufferingPolicy:onDrop:)", .timeLimit(.minutes(1)))
struct FlowPublisherTests {
    // MARK: Demand

    @Test func requestingOneDeliversExactlyOneAndTheRestWaits() {
        let subject = LiveSubject<Int, Never>()
        let recorder = DemandRecorder<Int, Never>()
        subject.flow.publisher.subscribe(recorder)
        recorder.request(.max(1))
        subject.send(1)
        subject.send(2)
        subject.send(3)
        #expect(recorder.values == [1])
        recorder.request(.max(1))
        #expect(recorder.values == [1, 2])
        recorder.request(.max(5))
        #expect(recorder.values == [1, 2, 3])
        subject.send(4)  // demand left over: straight through
        #expect(recorder.values == [1, 2, 3, 4])
    }

    @Test func theFlowIsSubscribedOnTheFirstDemandNotOnAttach() {
        let subscribes = Counter()
        let flow = Flow<Int, Never>.create { emitter in
            subscribes.increment()
            for value in 1...5 { emitter.send(value) }
            emitter.finish()
        }
        let dropped = Locked<[Int]>([])
        let recorder = DemandRecorder<Int, Never>()
        flow.publisher(bufferingPolicy: .bufferingOldest(0), onDrop: { value in dropped.withLock { $0.append(value) } })
            .subscribe(recorder)
        #expect(subscribes.value == 0, "attaching does not subscribe")
        recorder.request(.max(2))
        #expect(subscribes.value == 1)
        // A source that emits when subscribed emits into the demand: with no room in the
        // buffer, what is beyond the demand goes to onDrop, and the completion still arrives.
        #expect(recorder.events == [.value(1), .value(2), .finished])
        #expect(dropped.current == [3, 4, 5])
        recorder.request(.max(1))
        #expect(subscribes.value == 1, "later demand does not subscribe again")
    }

    @Test func demandReturnedFromReceiveIsHonouredWithoutBuffering() {
        // One value at a time, demanded back from receive(_:): with a buffer of zero nothing
        // may be dropped, so each value must arrive with the demand its predecessor returned.
        let dropped = Counter()
        let recorder = DemandRecorder<Int, Never>(initialDemand: .max(1), demandPerValue: { _ in .max(1) })
        Flow<Int, Never>.sequence(1...1_000)
            .publisher(bufferingPolicy: .bufferingOldest(0), onDrop: { _ in dropped.increment() })
            .subscribe(recorder)
        #expect(recorder.values == Array(1...1_000))
        #expect(recorder.events.last == .finished)
        #expect(dropped.value == 0)
    }

    @Test func requestFromInsideReceiveOnlyAddsDemand() {
        // A subscriber that requests from inside receive(_:) must not be re-entered.
        let subject = LiveSubject<Int, Never>()
        let recorder = DemandRecorder<Int, Never>(onEvent: { recorder, event in
            if case .value = event { recorder.request(.max(1)) }
        })
        subject.flow.publisher.subscribe(recorder)
        recorder.request(.max(1))
        for value in 1...100 { subject.send(value) }
        #expect(recorder.values == Array(1...100))
        #expect(recorder.overlaps == 0)
    }

    /// Values the subscriber has requested are not the buffer's: 10 and 11 arrive while thread
    /// A delivers 2, inside which the subscriber requested `.unlimited`; both wait only for A,
    /// whatever the limit on values not requested yet.
    @Test(arguments: [
        FlowPublisherBufferingPolicy<TestError>.failingWhenFull(limit: 1, error: TestError(code: 7)),
        .bufferingOldest(1),
        .bufferingNewest(1),
    ])
    func requestedValuesArrivingWhileAnotherThreadDeliversDoNotCountAgainstTheLimit(
        policy: FlowPublisherBufferingPolicy<TestError>
    ) {
        let subject = LiveSubject<Int, TestError>()
        let dropped = Locked<[Int]>([])
        let entered = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let recorder = DemandRecorder<Int, TestError>(onEvent: { recorder, event in
            if event == .value(2) {
                recorder.request(.unlimited)
                entered.signal()
                gate.wait()
            }
        })
        subject.flow
            .publisher(bufferingPolicy: policy, onDrop: { value in dropped.withLock { $0.append(value) } })
            .subscribe(recorder)
        recorder.request(.max(1))
        subject.send(1)  // delivered at once: the demand is spent
        subject.send(2)  // waits for demand
        let threadA = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            recorder.request(.max(1))  // delivers 2, held at the gate after requesting .unlimited
            threadA.signal()
        }
        #expect(waitedInTime(entered))
        subject.send(10)
        subject.send(11)
        gate.signal()
        #expect(waitedInTime(threadA))
        #expect(recorder.events == [.value(1), .value(2), .value(10), .value(11)])
        #expect(dropped.current == [])
    }

    /// The limit applies to what is beyond the outstanding demand: with `.max(2)` requested
    /// inside 2's delivery, 10 and 11 are requested, 12 fills the buffer of one, and 13 meets a
    /// full buffer.
    @Test(arguments: [
        (FlowPublisherBufferingPolicy<TestError>.bufferingOldest(1), [FlowEvent<Int, TestError>.value(12)], [13]),
        (.bufferingNewest(1), [.value(13)], [12]),
        (.failingWhenFull(limit: 1, error: TestError(code: 7)), [.value(12), .failure(TestError(code: 7))], []),
    ])
    func theLimitCountsOnlyValuesBeyondTheOutstandingDemand(
        policy: FlowPublisherBufferingPolicy<TestError>,
        afterOneMoreRequest: [FlowEvent<Int, TestError>],
        expectedDrops: [Int]
    ) {
        let subject = LiveSubject<Int, TestError>()
        let dropped = Locked<[Int]>([])
        let entered = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let recorder = DemandRecorder<Int, TestError>(onEvent: { recorder, event in
            if event == .value(2) {
                recorder.request(.max(2))
                entered.signal()
                gate.wait()
            }
        })
        subject.flow
            .publisher(bufferingPolicy: policy, onDrop: { value in dropped.withLock { $0.append(value) } })
            .subscribe(recorder)
        recorder.request(.max(1))
        subject.send(1)
        subject.send(2)
        let threadA = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            recorder.request(.max(1))  // delivers 2, held at the gate after requesting .max(2)
            threadA.signal()
        }
        #expect(waitedInTime(entered))
        for value in 10...13 { subject.send(value) }
        gate.signal()
        #expect(waitedInTime(threadA))
        #expect(recorder.events == [.value(1), .value(2), .value(10), .value(11)], "the requested values")
        recorder.request(.max(1))
        #expect(recorder.events == [.value(1), .value(2), .value(10), .value(11)] + afterOneMoreRequest)
        #expect(dropped.current == expectedDrops)
    }

    /// `request(.none)` breaks Combine's rules: it traps, at any time, with Combine's message,
    /// as OpenCombine's own subscriptions (subjects, `Just`, `Future`) do.
    @Test func requestingNoDemandTrapsAsCombinesSubscriptionsDo() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let recorder = DemandRecorder<Int, Never>()
            Flow<Int, Never>.sequence(1...3).publisher.subscribe(recorder)
            recorder.request(.none)
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("API Violation: demand must not be zero"))
        await #expect(processExitsWith: .failure) {
            let subject = LiveSubject<Int, Never>()
            let recorder = DemandRecorder<Int, Never>(initialDemand: .max(1))
            subject.flow.publisher.subscribe(recorder)
            let subscription = recorder.watchedSubscription as? any Subscription
            recorder.cancel()
            subscription?.request(.none)  // after cancel() too
        }
    }

    // MARK: Buffering policies when full

    @Test func unboundedKeepsEverything() {
        let subject = LiveSubject<Int, Never>()
        let recorder = DemandRecorder<Int, Never>()
        subject.flow.publisher(bufferingPolicy: .unbounded).subscribe(recorder)
        recorder.request(.max(1))
        for value in 1...1_000 { subject.send(value) }
        #expect(recorder.values == [1])
        recorder.request(.unlimited)
        #expect(recorder.values == Array(1...1_000))
    }

    @Test func bufferingNewestEvictsTheOldestToOnDrop() {
        let subject = LiveSubject<Int, Never>()
        let dropped = Locked<[Int]>([])
        let recorder = DemandRecorder<Int, Never>()
        subject.flow
            .publisher(bufferingPolicy: .bufferingNewest(2), onDrop: { value in dropped.withLock { $0.append(value) } })
            .subscribe(recorder)
        recorder.request(.max(1))
        for value in 1...5 { subject.send(value) }
        #expect(recorder.values == [1])
        #expect(dropped.current == [2, 3])
        recorder.request(.max(10))
        #expect(recorder.values == [1, 4, 5])
    }

    @Test func bufferingOldestDropsTheNewcomerToOnDrop() {
        let subject = LiveSubject<Int, Never>()
        let dropped = Locked<[Int]>([])
        let recorder = DemandRecorder<Int, Never>()
        subject.flow
            .publisher(bufferingPolicy: .bufferingOldest(2), onDrop: { value in dropped.withLock { $0.append(value) } })
            .subscribe(recorder)
        recorder.request(.max(1))
        for value in 1...5 { subject.send(value) }
        #expect(recorder.values == [1])
        #expect(dropped.current == [4, 5])
        recorder.request(.max(10))
        #expect(recorder.values == [1, 2, 3])
    }

    @Test func failingWhenFullCancelsTheFlowAndFailsAfterTheBufferedValues() {
        let cancels = Counter()
        let emitter = Locked<FlowEmitter<Int, TestError>?>(nil)
        let flow = Flow<Int, TestError>.create { sending in
            emitter.withLock { $0 = sending }
            sending.onCancel { cancels.increment() }
        }
        let dropped = Counter()
        let recorder = DemandRecorder<Int, TestError>()
        flow.publisher(bufferingPolicy: .failingWhenFull(limit: 2, error: TestError(code: 9)), onDrop: { _ in dropped.increment() })
            .subscribe(recorder)
        recorder.request(.max(1))
        let send = emitter.current
        for value in 1...3 { send?.send(value) }
        #expect(cancels.value == 0, "full, not overflowing yet")
        send?.send(4)
        #expect(cancels.value == 1, "the overflow cancels the flow at once")
        send?.send(5)
        #expect(recorder.values == [1], "the failure waits behind the buffered values")
        recorder.request(.max(1))
        #expect(recorder.events == [.value(1), .value(2)])
        recorder.request(.max(1))
        #expect(recorder.events == [.value(1), .value(2), .value(3), .failure(TestError(code: 9))])
        #expect(dropped.value == 0, "failing is not dropping")
        #expect(cancels.value == 1)
        #expect(recorder.eventsAfterCompletion == 0)
    }

    @Test func failingWhenFullWithNoRoomFailsAtOnce() {
        let subject = LiveSubject<Int, TestError>()
        let recorder = DemandRecorder<Int, TestError>()
        subject.flow.publisher(bufferingPolicy: .failingWhenFull(limit: 0, error: TestError(code: 2))).subscribe(recorder)
        recorder.request(.max(1))
        subject.send(1)
        subject.send(2)
        subject.send(3)
        #expect(recorder.events == [.value(1), .failure(TestError(code: 2))])
    }

    // MARK: Completion and failure

    @Test func finishArrivesAfterTheBufferedValuesAndNeedsNoDemand() {
        let subject = LiveSubject<Int, Never>()
        let recorder = DemandRecorder<Int, Never>()
        subject.flow.publisher.subscribe(recorder)
        recorder.request(.max(1))
        subject.send(1)
        subject.send(2)
        subject.send(3)
        subject.finish()
        #expect(recorder.events == [.value(1)])
        recorder.request(.max(1))
        #expect(recorder.events == [.value(1), .value(2)])
        recorder.request(.max(1))
        #expect(recorder.events == [.value(1), .value(2), .value(3), .finished], "no demand needed for the finish")
        #expect(!recorder.isHoldingSubscription)
    }

    @Test func failureArrivesAfterTheBufferedValues() {
        let subject = LiveSubject<Int, TestError>()
        let recorder = DemandRecorder<Int, TestError>()
        subject.flow.publisher.subscribe(recorder)
        recorder.request(.max(1))
        subject.send(1)
        subject.send(2)
        subject.fail(TestError(code: 4))
        #expect(recorder.events == [.value(1)])
        recorder.request(.max(1))
        #expect(recorder.events == [.value(1), .value(2), .failure(TestError(code: 4))])
    }

    @Test func completionWithNothingBufferedArrivesWithoutDemand() {
        let subject = LiveSubject<Int, Never>()
        let recorder = DemandRecorder<Int, Never>()
        subject.flow.publisher.subscribe(recorder)
        recorder.request(.max(1))
        subject.send(1)
        subject.finish()
        #expect(recorder.events == [.value(1), .finished])
    }

    // MARK: Cancellation

    @Test func combineCancelRunsTheFlowsCancelActionOnce() {
        let cancels = Counter()
        let emitter = Locked<FlowEmitter<Int, Never>?>(nil)
        let flow = Flow<Int, Never>.create { sending in
            emitter.withLock { $0 = sending }
            sending.onCancel { cancels.increment() }
        }
        let received = Locked<[Int]>([])
        let cancellable = flow.publisher.sink { value in received.withLock { $0.append(value) } }
        emitter.current?.send(1)
        cancellable.cancel()
        #expect(cancels.value == 1)
        cancellable.cancel()
        #expect(cancels.value == 1)
        emitter.current?.send(2)
        #expect(received.current == [1])
    }

    @Test func cancelWhileTheFlowIsBeingSubscribedCancelsItAtOnce() {
        // The flow emits synchronously inside its subscribe; the subscriber cancels on the first
        // value, before `subscribe` has returned: the sends after it are ignored.
        let cancels = Counter()
        let flow = Flow<Int, Never>.create { emitter in
            emitter.send(1)
            emitter.send(2)
            emitter.send(3)
            emitter.onCancel { cancels.increment() }
        }
        let recorder = DemandRecorder<Int, Never>(initialDemand: .unlimited, onEvent: { recorder, _ in recorder.cancel() })
        flow.publisher.subscribe(recorder)
        #expect(recorder.values == [1])
        #expect(cancels.value == 1)
    }

    /// `first()` cancels from inside `receive(_:)` while `Flow.sequence` is in its loop: the
    /// source stops there, having produced one value.
    @Test func firstStopsASynchronousSourceAfterOneValue() {
        let produced = Counter()
        let received = Locked<[Int]>([])
        let cancellable = Flow<Int, Never>.sequence(0..<1_000_000)
            .handleEvents(onValue: { _ in produced.increment() })
            .publisher
            .first()
            .sink { value in received.withLock { $0.append(value) } }
        #expect(received.current == [0])
        #expect(produced.value == 1)
        cancellable.cancel()
    }

    /// A subscriber that cancels inside `receive(_:)`, whatever its demand (unlimited: the
    /// per-value fast path; a number: the buffered path), stops a synchronous source at once.
    @Test(arguments: [nil, 5] as [Int?])
    func cancelInsideReceiveStopsASynchronousSourceAfterOneValue(maxDemand: Int?) {
        let produced = Counter()
        let completions = Counter()
        let recorder = DemandRecorder<Int, Never>(
            initialDemand: maxDemand.map { .max($0) } ?? .unlimited,
            onEvent: { recorder, _ in recorder.cancel() }
        )
        Flow<Int, Never>.sequence(0..<1_000_000)
            .handleEvents(onValue: { _ in produced.increment() }, onCompletion: { _ in completions.increment() })
            .publisher
            .subscribe(recorder)
        #expect(recorder.events == [.value(0)])
        #expect(produced.value == 1)
        #expect(completions.value == 0, "the source stopped rather than finished")
    }

    /// An endless synchronous flow returns once the subscriber has had enough. (A thread of its
    /// own, so that a source that never stops fails the test rather than hangs the run.)
    @Test(arguments: ["first()", "prefix(1)"])
    func anEndlessSynchronousFlowStopsWhenTheSubscriberHasEnough(limit: String) {
        let received = Locked<[Int]>([])
        let returned = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let endless = Flow<Int, Never>.sequence(0...).publisher
            let limited = limit == "first()" ? endless.first().eraseToAnyPublisher() : endless.prefix(1).eraseToAnyPublisher()
            let cancellable = limited.sink { value in received.withLock { $0.append(value) } }
            cancellable.cancel()
            returned.signal()
        }
        #expect(waitedInTime(returned), "the endless source did not stop")
        #expect(received.current == [0])
    }

    @Test func cancelDiscardsBufferedValuesAndDeliversNothingMore() {
        let subject = LiveSubject<Int, Never>()
        let recorder = DemandRecorder<Int, Never>()
        subject.flow.publisher.subscribe(recorder)
        recorder.request(.max(1))
        subject.send(1)
        subject.send(2)
        recorder.cancel()
        subject.send(3)
        subject.finish()
        #expect(recorder.events == [.value(1)])
    }

    @Test func cancelBeforeAnyDemandNeverSubscribes() {
        let subscribes = Counter()
        let flow = Flow<Int, Never>.create { _ in subscribes.increment() }
        let recorder = DemandRecorder<Int, Never>()
        flow.publisher.subscribe(recorder)
        recorder.cancel()
        recorder.request(.max(1))
        #expect(subscribes.value == 0)
    }

    // MARK: Threads

    /// Thread A delivers a buffered value (freed by its request) and is held inside
    /// receive(_:); meanwhile the flow sends another value, with demand to spare. It must wait
    /// for A (which delivers it next), not be delivered on the flow's thread at once. With
    /// `unlimited`, A's request is `.unlimited`: the fast path that locks once per value.
    @Test(arguments: [false, true])
    func aValueArrivingWhileAnotherThreadDeliversWaitsForIt(unlimited: Bool) {
        let subject = LiveSubject<Int, Never>()
        let entered = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let recorder = DemandRecorder<Int, Never>(onEvent: { _, event in
            if event == .value(1) {
                entered.signal()
                gate.wait()
            }
        })
        subject.flow.publisher.subscribe(recorder)
        recorder.request(.max(1))
        subject.send(0)  // delivered at once: the demand is spent
        subject.send(1)  // buffered
        let threadA = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            recorder.request(unlimited ? .unlimited : .max(2))  // delivers 1, held at the gate
            threadA.signal()
        }
        #expect(waitedInTime(entered))
        subject.send(2)
        #expect(recorder.values == [0, 1], "2 waits for the delivering thread")
        gate.signal()
        #expect(waitedInTime(threadA))
        #expect(recorder.values == [0, 1, 2], "delivered by thread A after 1")
        if unlimited {
            subject.send(3)  // unlimited demand, nothing buffered, nobody delivering: at once
            subject.finish()
            #expect(recorder.events == [.value(0), .value(1), .value(2), .value(3), .finished])
        }
        #expect(recorder.overlaps == 0)
    }

    @Test func valuesFromManyThreadsWithConcurrentDemandAreAllDeliveredOneAtATime() {
        let threads = 4
        let perThread = 2_000
        let total = threads * perThread
        let subject = LiveSubject<Int, Never>()
        let recorder = DemandRecorder<Int, Never>()
        subject.flow.publisher(bufferingPolicy: .unbounded).subscribe(recorder)
        recorder.request(.max(1))
        let sent = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            DispatchQueue.concurrentPerform(iterations: threads) { thread in
                for index in 0..<perThread { subject.send(thread * perThread + index) }
            }
            subject.finish()
            sent.signal()
        }
        // Demand one at a time from this thread, racing the senders.
        for _ in 1..<total { recorder.request(.max(1)) }
        #expect(waitedInTime(sent))
        #expect(waitedInTime(recorder.completed), "all values then the finish")
        let values = recorder.values
        #expect(values.count == total)
        #expect(Set(values).count == total, "each value once")
        for thread in 0..<threads {
            let own = values.filter { $0 / perThread == thread }
            #expect(own == own.sorted(), "a thread's values keep their order")
        }
        #expect(recorder.overlaps == 0, "deliveries never overlap")
        #expect(recorder.events.last == .finished)
    }

    // MARK: Leaks

    @Test func theSubscriptionAndSubscriberAreReleasedAfterCancel() {
        let subject = LiveSubject<Int, Never>()
        weak var weakRecorder: DemandRecorder<Int, Never>?
        weak var weakSubscription: AnyObject?
        do {
            let recorder = DemandRecorder<Int, Never>()
            weakRecorder = recorder
            subject.flow.publisher(bufferingPolicy: .bufferingNewest(4)).subscribe(recorder)
            recorder.request(.max(1))
            subject.send(1)
            subject.send(2)  // buffered
            weakSubscription = recorder.watchedSubscription
            #expect(weakSubscription != nil)
            recorder.cancel()
        }
        #expect(weakSubscription == nil)
        #expect(weakRecorder == nil)
    }

    @Test func theSubscriptionAndSubscriberAreReleasedAfterCompletion() {
        let subject = LiveSubject<Tracked, Never>()
        weak var weakRecorder: DemandRecorder<Tracked, Never>?
        weak var weakSubscription: AnyObject?
        weak var weakValue: Tracked?
        do {
            let recorder = DemandRecorder<Tracked, Never>(initialDemand: .max(1))
            weakRecorder = recorder
            subject.flow.publisher.subscribe(recorder)
            weakSubscription = recorder.watchedSubscription
            let value = Tracked()
            weakValue = value
            subject.send(value)
            subject.finish()
            #expect(recorder.events.count == 2)
        }
        #expect(weakSubscription == nil)
        #expect(weakRecorder == nil)
        #expect(weakValue == nil)
    }

    @Test func bufferedValuesAreReleasedOnCancel() {
        let subject = LiveSubject<Tracked, Never>()
        weak var weakValue: Tracked?
        let recorder = DemandRecorder<Tracked, Never>()
        subject.flow.publisher.subscribe(recorder)
        recorder.request(.max(1))
        subject.send(Tracked())
        do {
            let value = Tracked()
            weakValue = value
            subject.send(value)  // buffered: no demand
        }
        #expect(weakValue != nil)
        recorder.cancel()
        #expect(weakValue == nil)
    }
}
