import Dispatch
import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("Flow: flatMap, concatMap, flatMapWithIndex", .timeLimit(.minutes(1)))
struct FlowFlatMapTests {
    // MARK: flatMap

    @Test func mergesInnerValuesAsTheyArriveAndFinishesAfterOuterAndEveryInner() {
        let outer = ManualOuterFlow<String, TestError>()
        let inners = ManualInnerFlows<String, TestError>()
        let recorder = FlowRecorder(outer.flow.flatMap { inners.flow($0) })
        outer.send("a")
        inners.send("a", "1")
        outer.send("b")
        inners.send("b", "2")
        inners.send("a", "3")
        inners.finish("a")
        outer.finish()
        #expect(recorder.events == marbles("123"), "one inner still runs")
        inners.send("b", "4")
        inners.finish("b")
        #expect(recorder.events == marbles("1234|"))
        #expect(inners.subscribed == ["a", "b"])
    }

    @Test func synchronousInnersFlattenInOrder() {
        let flow = marbleFlow("abc|", failure: TestError()).flatMap { Flow.sequence([$0, $0.uppercased()]) }
        #expect(FlowRecorder(flow).events == marbles("aAbBcC|"))
    }

    @Test func anEmptyOuterFinishesAtOnce() {
        let flow = Flow<String, TestError>.empty.flatMap { Flow.just($0) }
        #expect(FlowRecorder(flow).events == marbles("|"))
    }

    @Test func anInnerFailureFailsTheResultAndCancelsTheOuterAndTheOtherInners() {
        let outer = ManualOuterFlow<String, TestError>()
        let inners = ManualInnerFlows<String, TestError>()
        let recorder = FlowRecorder(outer.flow.flatMap { inners.flow($0) })
        outer.send("a")
        outer.send("b")
        inners.send("a", "1")
        inners.fail("b", TestError(code: 2))
        inners.send("a", "2")
        outer.send("c")
        #expect(recorder.events == marbles("1#", failure: TestError(code: 2)))
        #expect(outer.cancels == 1)
        #expect(inners.cancels("a") == 1)
        #expect(inners.cancels("b") == 0, "it failed on its own")
        #expect(inners.subscribed == ["a", "b"])
    }

    @Test func anOuterFailureFailsTheResultAndCancelsEveryInner() {
        let outer = ManualOuterFlow<String, TestError>()
        let inners = ManualInnerFlows<String, TestError>()
        let recorder = FlowRecorder(outer.flow.flatMap { inners.flow($0) })
        outer.send("a")
        outer.send("b")
        inners.send("b", "1")
        outer.fail(TestError(code: 3))
        inners.send("a", "2")
        #expect(recorder.events == marbles("1#", failure: TestError(code: 3)))
        #expect(inners.cancels("a") == 1 && inners.cancels("b") == 1)
        #expect(outer.cancels == 0, "it failed on its own")
    }

    @Test func cancellingCancelsTheOuterAndEveryInnerOnceAndNothingArrivesAfter() {
        let outer = ManualOuterFlow<String, TestError>()
        let inners = ManualInnerFlows<String, TestError>()
        let recorder = FlowRecorder(outer.flow.flatMap(maxConcurrent: 2) { inners.flow($0) })
        outer.send("a")
        outer.send("b")
        outer.send("c")  // queued
        inners.send("a", "1")
        recorder.cancel()
        recorder.cancel()
        inners.send("b", "2")
        inners.finish("a")
        outer.send("d")
        outer.finish()
        #expect(recorder.events == marbles("1"))
        #expect(outer.cancels == 1)
        #expect(inners.cancels("a") == 1 && inners.cancels("b") == 1)
        #expect(inners.subscribed == ["a", "b"], "the queued value never starts")
    }

    // MARK: maxConcurrent

    @Test func maxConcurrentQueuesAThousandInnersWithoutLosingAValue() {
        let outer = ManualOuterFlow<Int, TestError>()
        let inners = ManualInnerFlows<Int, TestError>()
        let transforms = AtomicCounter()
        let recorder = FlowRecorder(outer.flow.flatMap(maxConcurrent: 3) { value in
            transforms.increment()
            return inners.flow("\(value)").map { $0 * 10 }
        })
        for value in 0..<1_000 { outer.send(value) }
        outer.finish()
        #expect(inners.subscribed == ["0", "1", "2"])
        #expect(transforms.value == 3, "a queued value's inner is built when its turn comes")
        var finishedCount = 0
        while let key = inners.running.last {  // finish the newest first, so the order varies
            #expect(inners.active == min(3, 1_000 - finishedCount))
            inners.send(key, Int(key)!)
            inners.finish(key)
            finishedCount += 1
        }
        #expect(finishedCount == 1_000)
        #expect(inners.maxActive == 3)
        #expect(transforms.value == 1_000)
        #expect(Set(recorder.values) == Set((0..<1_000).map { $0 * 10 }))
        #expect(recorder.values.count == 1_000)
        #expect(recorder.events.last == .finished)
    }

    @Test func queuedValuesStartInArrivalOrderAsSlotsFreeUp() {
        let outer = ManualOuterFlow<String, TestError>()
        let inners = ManualInnerFlows<String, TestError>()
        let recorder = FlowRecorder(outer.flow.flatMap(maxConcurrent: 2) { inners.flow($0) })
        for key in ["a", "b", "c", "d", "e"] { outer.send(key) }
        #expect(inners.subscribed == ["a", "b"])
        inners.finish("b")
        #expect(inners.subscribed == ["a", "b", "c"])
        inners.finish("a")
        #expect(inners.subscribed == ["a", "b", "c", "d"])
        outer.finish()
        inners.finish("d")
        inners.finish("c")
        #expect(!recorder.isCompleted, "e is queued")
        inners.send("e", "x")
        inners.finish("e")
        #expect(recorder.events == marbles("x|"))
    }

    @Test func innersCompletingOnOtherThreadsNeverExceedMaxConcurrentAndLoseNothing() async {
        let active = AtomicCounter()
        let maxActive = Box(0)
        let flow = Flow<Int, Never>.sequence(0..<2_000).flatMap(maxConcurrent: 3) { value in
            Flow<Int, Never>.create { emitter in
                active.increment()
                maxActive.value = max(maxActive.value, active.value)
                DispatchQueue.global().async {
                    emitter.send(value)
                    active.decrement()
                    emitter.finish()
                }
            }
        }
        let recorder = FlowRecorder(flow)
        await recorder.waitForCompletion()
        #expect(maxActive.value <= 3)
        #expect(recorder.values.sorted() == Array(0..<2_000))
        #expect(recorder.events.last == .finished)
    }

    // MARK: concatMap

    @Test func concatMapRunsOneInnerAtATimeInOrder() {
        let outer = ManualOuterFlow<String, TestError>()
        let inners = ManualInnerFlows<String, TestError>()
        let recorder = FlowRecorder(outer.flow.concatMap { inners.flow($0) })
        outer.send("a")
        outer.send("b")
        outer.send("c")
        outer.finish()
        #expect(inners.subscribed == ["a"])
        inners.send("a", "1")
        inners.finish("a")
        #expect(inners.subscribed == ["a", "b"])
        inners.send("b", "2")
        inners.send("b", "3")
        inners.finish("b")
        inners.send("c", "4")
        inners.finish("c")
        #expect(recorder.events == marbles("1234|"))
        #expect(inners.maxActive == 1)
    }

    @Test func concatMapStartsEachRequestOnlyAfterThePreviousOneCompleted() {
        let requests = [PendingOperation<Result<String, TestError>>(), PendingOperation(), PendingOperation()]
        let flow = Flow<Int, TestError>.sequence([0, 1, 2]).concatMap { index in
            Flow.create { emitter in requests[index].start { emitter.sendLast($0) } }
        }
        let recorder = FlowRecorder(flow)
        #expect(requests.map(\.starts) == [1, 0, 0])
        requests[0].complete(.success("manny"))
        #expect(requests.map(\.starts) == [1, 1, 0])
        requests[1].complete(.success("moe"))
        requests[2].complete(.success("jack"))
        #expect(recorder.events == [.value("manny"), .value("moe"), .value("jack"), .finished])
    }

    @Test func concatMapStartsAHundredThousandQueuedSynchronousInnersWithoutDeepRecursion() {
        let first = ManualInnerFlows<Int, Never>()
        let flow = Flow<Int, Never>.sequence(0..<100_000).concatMap { value in
            value == 0 ? first.flow("0") : .just(value)
        }
        let count = AtomicCounter()
        let finished = Box(false)
        _ = flow.subscribe(onValue: { _ in count.increment() }, onCompletion: { _ in finished.value = true })
        #expect(count.value == 0, "every other value waits behind the first inner")
        first.send("0", 0)
        first.finish("0")  // the 99,999 queued inners start and finish in one loop
        #expect(count.value == 100_000)
        #expect(finished.value)
    }

    // MARK: flatMapWithIndex

    @Test func flatMapWithIndexCountsFromZeroForEachSubscription() {
        let flow = marbleFlow("abc|", failure: TestError()).flatMapWithIndex { value, index in
            Flow.just("\(value)\(index)")
        }
        #expect(FlowRecorder(flow).values == ["a0", "b1", "c2"])
        #expect(FlowRecorder(flow).values == ["a0", "b1", "c2"], "a new subscription starts again at 0")
    }

    @Test func flatMapWithIndexQueuesWithMaxConcurrentAndKeepsIndicesWithTheirValues() {
        let outer = ManualOuterFlow<String, TestError>()
        let inners = ManualInnerFlows<String, TestError>()
        let recorder = FlowRecorder(outer.flow.flatMapWithIndex(maxConcurrent: 1) { value, index in
            inners.flow("\(value)\(index)")
        })
        outer.send("x")
        outer.send("y")
        outer.send("z")
        inners.finish("x0")
        inners.finish("y1")
        #expect(inners.subscribed == ["x0", "y1", "z2"])
        outer.finish()
        inners.finish("z2")
        #expect(recorder.events == marbles("|"))
    }

    // MARK: re-entrancy

    @Test func aHundredThousandInnersThatCompleteInsideSubscribeNeitherOverflowNorDeadlock() {
        let count = AtomicCounter()
        let last = Box(-1)
        let finished = Box(false)
        _ = Flow<Int, Never>.sequence(0..<100_000).flatMap { .just($0) }.subscribe(
            onValue: { value in
                count.increment()
                last.value = value
            },
            onCompletion: { _ in finished.value = true }
        )
        #expect(count.value == 100_000)
        #expect(last.value == 99_999)
        #expect(finished.value)
    }

    @Test func anInnerThatSendsToTheOuterFromInsideItsSubscribeIsServedAfterIt() {
        let outer = ManualOuterFlow<String, TestError>()
        let recorder = FlowRecorder(outer.flow.concatMap { value in
            Flow.create { emitter in
                if value == "a" { outer.send("b") }  // re-entrant: the outer is delivering "a"
                emitter.send(value)
                emitter.finish()
            }
        })
        outer.send("a")
        outer.finish()
        #expect(recorder.events == marbles("ab|"))
    }

    @Test func anInnerThatFailsInsideSubscribeFailsTheResultAndStopsASynchronousOuter() {
        let outerValues = AtomicCounter()
        let flow = Flow<Int, TestError>.sequence(0..<1_000).map { value in
            outerValues.increment()
            return value
        }.flatMap { value in value == 2 ? .fail(TestError(code: value)) : .just(value) }
        #expect(FlowRecorder(flow).events == [.value(0), .value(1), .failure(TestError(code: 2))])
        #expect(outerValues.value == 3)
    }

    // MARK: inners that stay open

    /// Inners finish in an order other than their start's, so the running ones move within
    /// the operator's bookkeeping: each finish still frees its own slot, and cancelling reaches
    /// exactly the inners still running (once each) and never starts the queued values.
    @Test func innersFinishingOutOfOrderFreeTheirOwnSlotsAndCancellingReachesExactlyTheRunningOnes() {
        let outer = ManualOuterFlow<String, TestError>()
        let inners = ManualInnerFlows<String, TestError>()
        let recorder = FlowRecorder(outer.flow.flatMap(maxConcurrent: 3) { inners.flow($0) })
        for key in ["a", "b", "c", "d"] { outer.send(key) }
        #expect(inners.running == ["a", "b", "c"], "d waits")
        inners.finish("a")
        #expect(inners.running == ["b", "c", "d"])
        inners.finish("c")
        inners.send("d", "1")
        outer.send("e")
        #expect(inners.running == ["b", "d", "e"], "c's slot is free: e starts at once")
        inners.finish("e")
        inners.send("b", "2")
        for key in ["f", "g", "h"] { outer.send(key) }
        #expect(inners.running == ["b", "d", "f"], "g and h wait")
        recorder.cancel()
        #expect(recorder.events == marbles("12"))
        #expect(["a", "b", "c", "d", "e", "f"].map(inners.cancels) == [0, 1, 0, 1, 0, 1])
        #expect(inners.subscribed == ["a", "b", "c", "d", "e", "f"], "the queued values never start")
    }

    /// A value that has left its inner's source when the subscription is cancelled, and reaches
    /// the operator only afterwards, is not delivered.
    @Test(arguments: [1, 3, Int.max])
    func aValueInFlightWhenTheSubscriptionIsCancelledIsNotDelivered(_ maxConcurrent: Int) {
        let outer = ManualOuterFlow<String, Never>()
        let inners = ManualInnerFlows<String, Never>()
        let inFlight = InFlightEvents()
        let recorder = FlowRecorder(outer.flow.flatMap(maxConcurrent: maxConcurrent) { key in
            inFlight.holding(inners.flow(key), valuesWhere: { $0 == "late" })
        })
        outer.send("a")
        outer.send("b")
        inners.send("a", "early")
        inFlight.send { inners.send("a", "late") }  // it has left a's emitter, not yet reached flatMap
        recorder.cancel()
        inFlight.release()
        #expect(recorder.values == ["early"])
        #expect(inners.cancels("a") == 1)
    }
}
