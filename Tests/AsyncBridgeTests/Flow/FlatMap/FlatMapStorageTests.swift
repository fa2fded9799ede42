import AsyncBridge
import AsyncBridgeTesting
import Dispatch
import Testing

/// What every member of the flatMap family shares through `FlatMapStorage`: serialised
/// delivery, cancellation, re-entrancy and releasing everything it held.
@Suite("Flow: the flatMap family's shared storage", .timeLimit(.minutes(1)))
struct FlatMapStorageTests {
    @Test(arguments: FlatMapVariant.allCases)
    func releasesInnersTransformAndUpstreamAfterCompletion(_ variant: FlatMapVariant) {
        weak var transformCapture: Tracked?
        weak var innerCapture: Tracked?
        weak var upstreamCapture: Tracked?
        let outer = Box<FlowEmitter<String, TestError>?>(nil)
        let inner = Box<FlowEmitter<String, TestError>?>(nil)
        let recorder: FlowRecorder<String, TestError>
        do {
            let forTransform = Tracked()
            let forInner = Tracked()
            let forUpstream = Tracked()
            transformCapture = forTransform
            innerCapture = forInner
            upstreamCapture = forUpstream
            let upstream = Flow<String, TestError>.create { emitter in
                outer.value = emitter
                emitter.onCancel { _ = forUpstream }
            }
            recorder = FlowRecorder(variant.apply(upstream) { value in
                _ = forTransform
                return Flow.create { emitter in
                    inner.value = emitter
                    emitter.onCancel { _ = forInner }
                }
            })
        }
        outer.value?.send("a")
        inner.value?.send("1")
        outer.value?.finish()
        inner.value?.finish()
        #expect(recorder.events == marbles("1|"))
        #expect(transformCapture == nil)
        #expect(innerCapture == nil)
        #expect(upstreamCapture == nil)
    }

    @Test(arguments: FlatMapVariant.allCases)
    func releasesInnersTransformAndUpstreamAfterCancellation(_ variant: FlatMapVariant) {
        weak var transformCapture: Tracked?
        weak var innerCapture: Tracked?
        weak var upstreamCapture: Tracked?
        let outer = Box<FlowEmitter<String, TestError>?>(nil)
        let recorder: FlowRecorder<String, TestError>
        do {
            let forTransform = Tracked()
            let forInner = Tracked()
            let forUpstream = Tracked()
            transformCapture = forTransform
            innerCapture = forInner
            upstreamCapture = forUpstream
            let upstream = Flow<String, TestError>.create { emitter in
                outer.value = emitter
                emitter.onCancel { _ = forUpstream }
            }
            recorder = FlowRecorder(variant.apply(upstream) { value in
                _ = forTransform
                return Flow.create { emitter in emitter.onCancel { _ = forInner } }
            })
        }
        outer.value?.send("a")
        outer.value?.send("b")  // queued, ignored or switched to, depending on the variant
        recorder.cancel()
        #expect(transformCapture == nil)
        #expect(innerCapture == nil)
        #expect(upstreamCapture == nil)
        #expect(recorder.events.isEmpty)
    }

    @Test(arguments: FlatMapVariant.allCases)
    func releasesEverythingAfterAnInnerFailure(_ variant: FlatMapVariant) {
        weak var transformCapture: Tracked?
        weak var upstreamCapture: Tracked?
        let outer = Box<FlowEmitter<String, TestError>?>(nil)
        let recorder: FlowRecorder<String, TestError>
        do {
            let forTransform = Tracked()
            let forUpstream = Tracked()
            transformCapture = forTransform
            upstreamCapture = forUpstream
            let upstream = Flow<String, TestError>.create { emitter in
                outer.value = emitter
                emitter.onCancel { _ = forUpstream }
            }
            recorder = FlowRecorder(variant.apply(upstream) { _ in
                _ = forTransform
                return Flow.fail(TestError(code: 9))
            })
        }
        outer.value?.send("a")
        #expect(recorder.events == marbles("#", failure: TestError(code: 9)))
        #expect(transformCapture == nil)
        #expect(upstreamCapture == nil)
    }

    @Test(arguments: FlatMapVariant.allCases)
    func aLiveSubscriptionWhoseSourcesHoldNothingKeepsNothingAlive(_ variant: FlatMapVariant) {
        weak var handlerCapture: Tracked?
        weak var transformCapture: Tracked?
        let token: CancellationToken
        do {
            let forHandler = Tracked()
            let forTransform = Tracked()
            handlerCapture = forHandler
            transformCapture = forTransform
            let flow = variant.apply(Flow<String, TestError>.never) { value in
                _ = forTransform
                return Flow.just(value)
            }
            token = flow.subscribe { _ in _ = forHandler }
        }
        #expect(handlerCapture == nil, "no reference cycle keeps the subscriber alive")
        #expect(transformCapture != nil, "until cancelled, the subscription keeps its transform")
        token.cancel()
        #expect(transformCapture == nil)
    }

    @Test(arguments: FlatMapVariant.allCases)
    func aSubscriberThatCancelsFromItsHandlerGetsNothingMoreAndEverythingStops(_ variant: FlatMapVariant) {
        let outer = ManualOuterFlow<String, TestError>()
        let inners = ManualInnerFlows<String, TestError>()
        let token = Box<CancellationToken?>(nil)
        let seen = Box<[String]>([])
        token.value = variant.apply(outer.flow) { inners.flow($0) }.subscribe(onValue: { value in
            seen.value.append(value)
            token.value?.cancel()
        }, onCompletion: { _ in })
        outer.send("a")
        inners.send("a", "1")
        inners.send("a", "2")
        outer.send("b")
        inners.send("b", "3")
        #expect(seen.value == ["1"])
        #expect(outer.cancels == 1)
        #expect(inners.cancels("a") == 1)
        #expect(inners.subscribed == ["a"])
    }

    @Test(arguments: FlatMapVariant.allCases)
    func cancellingFromTheHandlerStopsSynchronousSources(_ variant: FlatMapVariant) {
        let outerValues = AtomicCounter()
        let innerValues = AtomicCounter()
        let outer = Flow<Int, Never>.sequence(0..<1_000_000).map { value in
            outerValues.increment()
            return value
        }
        let inner = Flow<Int, Never>.sequence(0..<1_000_000).map { value in
            innerValues.increment()
            return value
        }
        // A trigger, so that the token exists before the synchronous sources run.
        let trigger = ManualOuterFlow<Int, Never>()
        let token = Box<CancellationToken?>(nil)
        let seen = AtomicCounter()
        token.value = trigger.flow.flatMap { _ in variant.apply(outer) { _ in inner } }.subscribe(onValue: { _ in
            seen.increment()
            token.value?.cancel()
        }, onCompletion: { _ in })
        trigger.send(0)
        #expect(seen.value == 1)
        #expect(innerValues.value == 1, "the inner sequence stopped at once")
        #expect(outerValues.value == 1, "the outer sequence stopped at once")
        #expect(trigger.cancels == 1)
    }

    @Test(arguments: FlatMapVariant.allCases)
    func subscribingWithAnAlreadyCancelledSubscriptionStartsNothing(_ variant: FlatMapVariant) {
        let outer = ManualOuterFlow<String, TestError>()
        let inners = ManualInnerFlows<String, TestError>()
        let trigger = ManualOuterFlow<Int, TestError>()
        let token = Box<CancellationToken?>(nil)
        let seen = Box<[FlowEvent<String, TestError>]>([])
        token.value = trigger.flow.flatMap { _ in
            token.value?.cancel()  // the inner's subscription is cancelled before it subscribes
            return variant.apply(outer.flow) { inners.flow($0) }
        }.subscribe { seen.value.append($0) }
        trigger.send(1)
        outer.send("a")
        outer.finish()
        #expect(outer.subscriptions == 1 && outer.cancels == 1, "the outer's cancel action ran at once")
        #expect(inners.subscribed.isEmpty)
        #expect(seen.value.isEmpty)
    }

    @Test(arguments: FlatMapVariant.allCases)
    func aSwitchingOuterCancelsANestedMemberWithItsOuterAndInners(_ variant: FlatMapVariant) {
        let outer = ManualOuterFlow<String, TestError>()
        let inners = ManualInnerFlows<String, TestError>()
        // `flatMapLatest` over a switch subscribes an inner flatMap-family flow, then cancels it.
        let switcher = ManualOuterFlow<Int, TestError>()
        let recorder = FlowRecorder(switcher.flow.flatMapLatest { _ in variant.apply(outer.flow) { inners.flow($0) } })
        switcher.send(1)
        outer.send("a")
        switcher.send(2)
        #expect(outer.subscriptions == 2)
        #expect(outer.cancels == 1)
        #expect(inners.cancels("a") == 1)
        recorder.cancel()
        #expect(outer.cancels == 2)
    }

    @Test(arguments: FlatMapVariant.allCases.filter(\.startsEveryValueAtOnce))
    func deliveriesFromInnersOnEightThreadsAreSerialisedAndNoneIsLost(_ variant: FlatMapVariant) {
        let outer = ManualOuterFlow<Int, Never>()
        let inners = ManualInnerFlows<Int, Never>()
        let inHandler = AtomicCounter()
        let overlaps = AtomicCounter()
        let received = Box<[Int]>([])
        let finished = Box(false)
        let flow = variant.apply(outer.flow) { inners.flow("\($0)") }
        _ = flow.subscribe(
            onValue: { value in
                inHandler.increment()
                if inHandler.value > 1 { overlaps.increment() }
                received.value.append(value)
                inHandler.decrement()
            },
            onCompletion: { _ in finished.value = true }
        )
        let threads = variant == .flatMapLatest || variant == .flatMapLatestWeak ? 1 : (variant == .flatMapMaxConcurrent2 ? 2 : 8)
        for thread in 0..<threads { outer.send(thread) }
        outer.finish()
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for index in 0..<1_000 { inners.send("\(thread)", thread * 1_000 + index) }
            inners.finish("\(thread)")
        }
        #expect(overlaps.value == 0)
        #expect(received.value.count == threads * 1_000)
        #expect(Set(received.value).count == threads * 1_000)
        #expect(finished.value)
    }

    @Test func cancellingWhileInnersEmitOnFourThreadsEndsDeliveriesAndCancelsEachOnce() async {
        let outer = ManualOuterFlow<Int, Never>()
        let inners = ManualInnerFlows<Int, Never>()
        let recorder = FlowRecorder(outer.flow.flatMap { inners.flow("\($0)") })
        for thread in 0..<4 { outer.send(thread) }
        let senders = DispatchGroup()
        for thread in 0..<4 {
            DispatchQueue.global().async(group: senders) {
                for index in 0..<10_000 { inners.send("\(thread)", index) }
            }
        }
        await recorder.waitForValues(1_000)
        recorder.cancel()
        let deliveredAtCancel = recorder.values.count
        await withCheckedContinuation { done in senders.notify(queue: .global()) { done.resume() } }
        #expect(recorder.values.count - deliveredAtCancel <= 1, "at most the delivery in flight when cancel returned")
        #expect(!recorder.isCompleted)
        #expect(outer.cancels == 1)
        #expect((0..<4).map { inners.cancels("\($0)") } == [1, 1, 1, 1])
    }
}

/// An inner cancelled by the result's failure while it emits synchronously, and while another
/// thread delivers (so the drain stays open and its values only queue): it learns from the
/// value it submits next that it was cancelled, and its source stops.
@Suite("Flow: the flatMap family's shared storage, inners cancelled while another thread delivers", .timeLimit(.minutes(1)))
struct FlatMapCancelledInnerTests {
    /// `0..<count`, calling `onPull` with each index before handing it out.
    struct PullingSequence: Sequence, Sendable {
        let count: Int
        let onPull: @Sendable (Int) -> Void

        func makeIterator() -> AnyIterator<Int> {
            var next = 0
            return AnyIterator {
                guard next < count else { return nil }
                onPull(next)
                defer { next += 1 }
                return next
            }
        }
    }

    @Test(arguments: FlatMapVariant.allCases)
    func aTransformRunningWhenTheSubscriptionIsCancelledIsReleasedOnceItReturns(_ variant: FlatMapVariant) async {
        let outer = ManualOuterFlow<String, TestError>()
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let starterDone = DispatchSemaphore(value: 0)
        weak var transformCapture: Tracked?
        let recorder: FlowRecorder<String, TestError>
        do {
            let forTransform = Tracked()
            transformCapture = forTransform
            recorder = FlowRecorder(variant.apply(outer.flow) { value in
                _ = forTransform
                entered.signal()
                proceed.wait()
                return .just(value)
            })
        }
        DispatchQueue(label: "starter").async {
            outer.send("a")
            starterDone.signal()
        }
        await wait(for: entered)
        recorder.cancel()  // tears the subscription down while the starter calls the transform
        #expect(transformCapture != nil, "released under the running transform")
        proceed.signal()
        await wait(for: starterDone)
        #expect(transformCapture == nil, "kept after the starter left")
        #expect(recorder.events == [])
    }

    @Test(arguments: [FlatMapVariant.flatMap, .flatMapWithIndex, .flatMapWeak, .flatMapWithIndexWeak])
    func aSynchronousInnerCancelledByAnotherInnersFailureStopsAtItsNextValue(_ variant: FlatMapVariant) async {
        let outer = ManualOuterFlow<String, TestError>()
        let inners = ManualInnerFlows<String, TestError>()
        let handlerEntered = DispatchSemaphore(value: 0)
        let releaseHandler = DispatchSemaphore(value: 0)
        let secondPulled = DispatchSemaphore(value: 0)
        let failed = DispatchSemaphore(value: 0)
        let starterDone = DispatchSemaphore(value: 0)
        let completed = DispatchSemaphore(value: 0)
        let pulled = AtomicCounter()
        let gated = PullingSequence(count: 1_000) { index in
            pulled.increment()
            if index == 1 {
                secondPulled.signal()
                failed.wait()
            }
        }
        let events = Box<[FlowEvent<String, TestError>]>([])
        _ = variant.apply(outer.flow) { key in
            key == "a" ? Flow.sequence(gated).map { "a\($0)" } : inners.flow(key)
        }.subscribe { event in
            events.value.append(event)
            if event == .value("b1") {
                handlerEntered.signal()
                releaseHandler.wait()
            }
            if case .failure = event { completed.signal() }
        }
        outer.send("b")
        outer.send("c")
        DispatchQueue(label: "deliverer").async { inners.send("b", "b1") }
        await wait(for: handlerEntered)  // that thread delivers, and holds the drain
        DispatchQueue(label: "starter").async {
            outer.send("a")  // "a0" queues; then the sequence waits at index 1
            starterDone.signal()
        }
        await wait(for: secondPulled)
        inners.fail("c", TestError(code: 1))  // cancels "a"; the failure queues
        failed.signal()
        await wait(for: starterDone)
        #expect(pulled.value == 2, "the cancelled inner's source stops after the value it submitted next")
        releaseHandler.signal()
        await wait(for: completed)
        #expect(events.value == [.value("b1"), .value("a0"), .failure(TestError(code: 1))])
        #expect(outer.cancels == 1)
    }
}
