import Dispatch
import Testing
import AsyncBridge
import AsyncBridgeTesting

/// The machinery every subject and relay shares: serialised delivery from many threads,
/// re-entrancy, and letting go of subscribers and values.
@Suite("Subjects: shared machinery", .timeLimit(.minutes(2)))
struct SubjectStorageTests {
    // MARK: Many threads

    @Test(arguments: SubjectKind.allCases)
    func eightSendingThreadsWithSubscribersJoiningAndLeaving(kind: SubjectKind) {
        let subject = kind.make()
        let throughout = StressSubscriber(subject.flow)
        let joiners = Box<[StressSubscriber]>([])
        let threads = 8
        let perThread = 2_000
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            var joiner: StressSubscriber?
            for index in 0..<perThread {
                if index % 100 == 0 {
                    let newcomer = StressSubscriber(subject.flow)
                    joiners.mutate { $0.append(newcomer) }  // from eight threads at once
                    joiner = newcomer
                }
                subject.send(thread * perThread + index)
                if index % 100 == 60 { joiner?.cancel() }
            }
        }
        // Every send has returned, so every deliverer has worked through its queue.
        let order = throughout.received
        #expect(throughout.probe.maxInside == 1, "deliveries to one subscriber never overlap")
        var sent = order
        if kind == .behavior {
            #expect(sent.first == SubjectKind.initialValue)
            sent.removeFirst()
        }
        #expect(sent.count == threads * perThread, "nothing lost for a subscriber present throughout")
        #expect(Set(sent).count == sent.count, "nothing delivered twice")
        for thread in 0..<threads {
            let fromThread = sent.filter { $0 / perThread == thread }
            #expect(fromThread == Array(thread * perThread..<(thread + 1) * perThread), "one thread's sends stay in order")
        }
        // Everyone sees one order: what a joiner got (its replay included) is a contiguous
        // stretch of what the long-lived subscriber got — no gap, no duplicate, no reordering.
        let position = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1, $0) })
        #expect(joiners.value.count == threads * perThread / 100)
        for joiner in joiners.value {
            #expect(joiner.probe.maxInside <= 1)
            let received = joiner.received
            guard let first = received.first, let start = position[first] else {
                #expect(received.isEmpty)
                continue
            }
            #expect(Array(order.dropFirst(start).prefix(received.count)) == received)
        }
        throughout.cancel()
    }

    @Test func sendersFromManyThreadsAndAFinishMeetTheGrammar() {
        let subject = LiveSubject<Int, Never>()
        let recorder = FlowRecorder(subject.flow)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<500 { subject.send(thread * 500 + index) }
            if thread == 3 { subject.finish() }
        }
        let events = recorder.events
        #expect(events.last == .finished)
        #expect(events.dropLast().allSatisfy { if case .value = $0 { true } else { false } })
    }

    // MARK: Re-entrancy

    @Test(arguments: SubjectKind.allCases)
    func aSendFromInsideAHandlerIsDeliveredAfterTheCurrentOneToEverySubscriber(kind: SubjectKind) {
        let subject = kind.make()
        let log = Box<[String]>([])
        let first = subject.flow.subscribe(onValue: { value in
            guard value >= 0 else { return }
            log.value.append("A\(value)")
            if value < 2 { subject.send(value + 1) }
        }, onCompletion: { _ in })
        let second = subject.flow.subscribe(onValue: { value in
            guard value >= 0 else { return }
            log.value.append("B\(value)")
        }, onCompletion: { _ in })
        subject.send(0)
        #expect(log.value == ["A0", "B0", "A1", "B1", "A2", "B2"])
        first.cancel()
        second.cancel()
    }

    @Test(arguments: SubjectKind.allCases)
    func aHandlerThatCancelsItselfGetsNothingMoreAndOthersLoseNothing(kind: SubjectKind) {
        let subject = kind.make()
        let token = Box<CancellationToken?>(nil)
        let cancelling = Box<[Int]>([])
        token.value = subject.flow.subscribe(onValue: { value in
            guard value >= 0 else { return }
            cancelling.value.append(value)
            token.value?.cancel()
            subject.send(value + 10)  // after cancelling itself: others get it, it does not
        }, onCompletion: { _ in })
        let other = FlowRecorder(subject.flow)
        subject.send(1)
        subject.send(2)
        subject.finish()
        #expect(cancelling.value == [1])
        let expected: [FlowEvent<Int, Never>] = [.value(1), .value(11), .value(2), .finished]
        #expect(other.events.filter { $0 != .value(SubjectKind.initialValue) } == expected)
    }

    @Test func aHandlerThatCancelsAnotherSubscriberStopsItBeforeTheCurrentValue() {
        let subject = LiveSubject<Int, Never>()
        let victim = Box<CancellationToken?>(nil)
        let first = subject.flow.subscribe(onValue: { _ in victim.value?.cancel() }, onCompletion: { _ in })
        let seen = Box<[Int]>([])
        victim.value = subject.flow.subscribe(onValue: { seen.value.append($0) }, onCompletion: { _ in })
        subject.send(1)
        #expect(seen.value == [], "cancelled, on this thread, before its turn for this value")
        first.cancel()
    }

    @Test(arguments: SubjectKind.allCases)
    func aHandlerThatCancelsAnotherSubscriberDuringTheCompletionStopsItsCompletion(kind: SubjectKind) {
        let subject = kind.make()
        let victim = Box<CancellationToken?>(nil)
        let firstFinished = Box(false)
        _ = subject.flow.subscribe(onValue: { _ in }, onCompletion: { _ in
            firstFinished.value = true
            victim.value?.cancel()
        })
        let victimEvents = Box<[FlowEvent<Int, Never>]>([])
        victim.value = subject.flow.subscribe { victimEvents.value.append($0) }
        subject.send(1)
        subject.finish()
        #expect(firstFinished.value)
        #expect(victimEvents.value.filter { $0 != .value(SubjectKind.initialValue) } == [.value(1)],
                "cancelled, on the delivering thread, before its turn for the completion")
    }

    @Test(arguments: SubjectKind.allCases)
    func aSubscriberCancelledBeforeItsTurnInTheQueueGetsNothingAndIsReleased(kind: SubjectKind) {
        let subject = kind.make()
        weak var capture: Tracked?
        let handedOver = Box<Tracked?>(nil)
        do {
            let tracked = Tracked()
            capture = tracked
            handedOver.value = tracked
        }
        let late = Box<[Int]>([])
        let trigger = subject.flow.subscribe(onValue: { value in
            guard value == 1, let tracked = handedOver.take() else { return }
            // Subscribing from inside a delivery queues the subscription behind it.
            let token = subject.flow.subscribe(onValue: { value in
                _ = tracked
                late.value.append(value)
            }, onCompletion: { _ in })
            token.cancel()  // before its turn: no replay, never joins
        }, onCompletion: { _ in })
        subject.send(1)
        subject.send(2)
        #expect(late.value == [])
        #expect(capture == nil)
        trigger.cancel()
    }

    @Test(arguments: SubjectKind.allCases)
    func aHandlerThatCancelsItselfIsReleasedWhenTheSendReturns(kind: SubjectKind) {
        let subject = kind.make()
        weak var capture: Tracked?
        let token = Box<CancellationToken?>(nil)
        let other = FlowRecorder(subject.flow)
        do {
            let tracked = Tracked()
            capture = tracked
            token.value = subject.flow.subscribe(onValue: { value in
                _ = tracked
                if value == 1 { token.value?.cancel() }
            }, onCompletion: { _ in })
        }
        subject.send(1)
        #expect(capture == nil, "the subject let go of it once the delivery ended")
        subject.send(2)
        #expect(other.values.filter { $0 != SubjectKind.initialValue } == [1, 2])
        other.cancel()
    }

    @Test func aCancellationFromAnotherThreadDuringADeliveryStopsEveryLaterEvent() {
        // Contract 3: nothing after the cancellation has returned, except the event in flight.
        // The victim is cancelled from another thread while the first subscriber's handler
        // holds the delivery of 1; 2 is queued behind it, so it must never reach the victim.
        let subject = LiveSubject<Int, Never>()
        let victim = Box<CancellationToken?>(nil)
        let first = subject.flow.subscribe(onValue: { value in
            guard value == 1 else { return }
            subject.send(2)  // queued behind 1
            let cancelled = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                victim.value?.cancel()
                cancelled.signal()
            }
            cancelled.wait()  // the cancellation has returned
        }, onCompletion: { _ in })
        let seen = Box<[Int]>([])
        victim.value = subject.flow.subscribe(onValue: { seen.value.append($0) }, onCompletion: { _ in })
        subject.send(1)
        subject.send(3)
        #expect(!seen.value.contains(2) && !seen.value.contains(3))
        #expect(seen.value.count <= 1, "at most 1, which was in flight when it was cancelled")
        first.cancel()
    }

    @Test(arguments: SubjectKind.allCases)
    func aHandlerThatFinishesTheSubjectEndsEverySubscriberAfterTheCurrentValue(kind: SubjectKind) {
        let subject = kind.make()
        let finishing = subject.flow.subscribe(onValue: { value in
            if value == 1 {
                subject.finish()
                subject.send(2)  // after the finish: ignored
            }
        }, onCompletion: { _ in })
        let other = FlowRecorder(subject.flow)
        subject.send(1)
        #expect(other.events.filter { $0 != .value(SubjectKind.initialValue) } == [.value(1), .finished])
        finishing.cancel()
    }

    // MARK: Letting go

    @Test(arguments: SubjectKind.allCases)
    func aSubjectReleasesASubscriberThatCancelled(kind: SubjectKind) {
        let subject = kind.make()
        weak var capture: Tracked?
        let token: CancellationToken
        do {
            let tracked = Tracked()
            capture = tracked
            token = subject.flow.subscribe(onValue: { _ in _ = tracked }, onCompletion: { _ in })
        }
        subject.send(1)
        #expect(capture != nil)
        token.cancel()
        #expect(capture == nil)
        subject.send(2)
    }

    @Test(arguments: SubjectKind.allCases)
    func aSubjectReleasesItsSubscribersWhenItCompletesAndHoldsNoLateOne(kind: SubjectKind) {
        let subject = kind.make()
        weak var early: Tracked?
        weak var late: Tracked?
        do {
            let tracked = Tracked()
            early = tracked
            _ = subject.flow.subscribe(onValue: { _ in _ = tracked }, onCompletion: { _ in })
        }
        subject.send(1)
        #expect(early != nil)
        subject.finish()
        #expect(early == nil)
        do {
            let tracked = Tracked()
            late = tracked
            _ = subject.flow.subscribe(onValue: { _ in _ = tracked }, onCompletion: { _ in })
        }
        #expect(late == nil)
    }

    @Test func aSubscriptionDoesNotKeepTheSubjectAlive() {
        weak var weakSubject: LiveSubject<Int, Never>?
        let recorder: FlowRecorder<Int, Never>
        do {
            let subject = LiveSubject<Int, Never>()
            weakSubject = subject
            recorder = FlowRecorder(subject.flow.map { $0 + 1 })
            subject.send(1)
        }
        #expect(weakSubject == nil)
        #expect(recorder.events == [.value(2)], "a released subject does not complete its subscribers")
        recorder.cancel()
    }

    @Test(arguments: SubjectKind.allCases)
    func aSubjectLetGoOfWhileSubscribedReleasesItsSubscribers(kind: SubjectKind) {
        // Only the subject holds them: their tokens are dropped without cancelling. The middle
        // one cancels, leaving a hole in the list the others are still in.
        weak var first: Tracked?
        weak var last: Tracked?
        do {
            let subject = kind.make()
            let firstTracked = Tracked(), lastTracked = Tracked()
            first = firstTracked
            last = lastTracked
            _ = subject.flow.subscribe(onValue: { _ in _ = firstTracked }, onCompletion: { _ in })
            subject.flow.subscribe(onValue: { _ in }, onCompletion: { _ in }).cancel()
            _ = subject.flow.subscribe(onValue: { _ in _ = lastTracked }, onCompletion: { _ in })
            subject.send(1)
            #expect(first != nil && last != nil)
        }
        #expect(first == nil, "released with the subject")
        #expect(last == nil, "released with the subject")
    }

    @Test func aReplaySubjectReleasesTheValuesItNoLongerBuffers() {
        let released = Box<[Int]>([])
        let subject = ReplayingSubject<ReleasedValue, Never>(bufferSize: 2)
        for id in 1...4 { subject.send(ReleasedValue(id) { released.value.append($0) }) }
        #expect(released.value == [1, 2])
    }

    @Test func aValueWhoseReleaseSendsToTheSameSubjectDoesNotDeadlock() {
        // The buffer lets go of the old value outside the lock; if it did so inside, this
        // value's deinit would lock the subject again, on the same thread.
        let relay = Box<LatestValueRelay<ReleasedValue>?>(nil)
        relay.value = LatestValueRelay(value: ReleasedValue(1) { _ in
            relay.value?.accept(ReleasedValue(99) { _ in })
        })
        let recorder = FlowRecorder(relay.value!.flow.map(\.id))
        relay.value?.accept(ReleasedValue(2) { _ in })
        #expect(recorder.values == [1, 2, 99])
        #expect(relay.value?.value.id == 99)
        recorder.cancel()
        relay.value = nil
    }
}
