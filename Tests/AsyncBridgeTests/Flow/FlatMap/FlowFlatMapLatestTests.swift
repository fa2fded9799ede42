@_spi(AsyncBridgeInternals) import AsyncBridge
import AsyncBridgeTesting
import Dispatch
import Testing

@Suite("Flow: flatMapLatest", .timeLimit(.minutes(1)))
struct FlowFlatMapLatestTests {
    @Test func switchesToTheLatestInnerAndWaitsForItAfterTheOuterFinished() {
        let outer = ManualOuterFlow<String, TestError>()
        let inners = ManualInnerFlows<String, TestError>()
        let recorder = FlowRecorder(outer.flow.flatMapLatest { inners.flow($0) })
        outer.send("a")
        inners.send("a", "1")
        outer.send("b")
        inners.send("a", "2")  // cancelled: ignored
        inners.send("b", "3")
        outer.finish()
        #expect(recorder.events == marbles("13"), "the latest inner still runs")
        inners.send("b", "4")
        inners.finish("b")
        #expect(recorder.events == marbles("134|"))
        #expect(inners.cancels("a") == 1)
        #expect(inners.cancels("b") == 0)
    }

    @Test func finishesAtOnceWhenTheOuterFinishesWithNoInnerRunning() {
        let outer = ManualOuterFlow<String, TestError>()
        let inners = ManualInnerFlows<String, TestError>()
        let recorder = FlowRecorder(outer.flow.flatMapLatest { inners.flow($0) })
        outer.send("a")
        inners.send("a", "1")
        inners.finish("a")
        #expect(recorder.events == marbles("1"))
        outer.finish()
        #expect(recorder.events == marbles("1|"))
    }

    @Test func cancelsThePreviousInnerBeforeSubscribingTheNext() {
        let log = Box<[String]>([])
        let outer = ManualOuterFlow<String, TestError>()
        let recorder = FlowRecorder(outer.flow.flatMapLatest { value in
            log.value.append("transform \(value)")
            return Flow<String, TestError>.create { emitter in
                log.value.append("subscribe \(value)")
                emitter.onCancel { log.value.append("cancel \(value)") }
            }
        })
        outer.send("a")
        outer.send("b")
        outer.send("c")
        #expect(log.value == [
            "transform a", "subscribe a",
            "cancel a", "transform b", "subscribe b",
            "cancel b", "transform c", "subscribe c",
        ])
        recorder.cancel()
        #expect(log.value.last == "cancel c")
        #expect(log.value.count { $0.hasPrefix("cancel") } == 3, "each inner is cancelled exactly once")
    }

    @Test func aValueInFlightFromTheReplacedInnerNeverArrivesAfterTheNewInnersValues() {
        let outer = ManualOuterFlow<String, Never>()
        let inners = ManualInnerFlows<String, Never>()
        let inFlight = InFlightEvents()
        let recorder = FlowRecorder(outer.flow.flatMapLatest { key in
            inFlight.holding(inners.flow(key), valuesWhere: { $0 == "late" })
        })
        outer.send("a")
        inFlight.send { inners.send("a", "late") }  // it has left a's emitter, not yet reached flatMapLatest
        outer.send("b")
        inners.send("b", "b1")
        inFlight.release()
        inners.send("b", "b2")
        #expect(recorder.values == ["b1", "b2"])
        #expect(inners.cancels("a") == 1)
    }

    /// A failure that has left the replaced inner's source at the switch, and reaches the
    /// operator only afterwards, is ignored: the new inner goes on.
    @Test func aFailureInFlightFromTheReplacedInnerIsIgnored() {
        let outer = ManualOuterFlow<String, TestError>()
        let inners = ManualInnerFlows<String, TestError>()
        let inFlight = InFlightEvents()
        let recorder = FlowRecorder(outer.flow.flatMapLatest { key in
            inFlight.holding(inners.flow(key), completion: key == "a")
        })
        outer.send("a")
        inFlight.send { inners.fail("a", TestError(code: 1)) }  // it has left a's emitter, not yet reached flatMapLatest
        outer.send("b")
        inners.send("b", "1")
        inFlight.release()
        inners.send("b", "2")
        inners.finish("b")
        outer.finish()
        #expect(recorder.events == marbles("12|"))
        #expect(outer.cancels == 0)
    }

    /// Three switches while values of each replaced inner are still on their way: none of them
    /// arrives after a value of a later inner, whichever inner it came from.
    @Test func valuesInFlightFromSeveralReplacedInnersNeverFollowALaterInnersValues() {
        let outer = ManualOuterFlow<String, Never>()
        let inners = ManualInnerFlows<String, Never>()
        let inFlight = InFlightEvents()
        let recorder = FlowRecorder(outer.flow.flatMapLatest { key in
            inFlight.holding(inners.flow(key), valuesWhere: { $0.hasSuffix("late") })
        })
        for key in ["a", "b", "c"] {
            outer.send(key)
            inners.send(key, key)
            inFlight.send { inners.send(key, key + " late") }
        }
        outer.send("d")
        inners.send("d", "d")
        inFlight.release(3)
        inners.send("d", "d2")
        #expect(recorder.values == ["a", "b", "c", "d", "d2"])
        #expect(["a", "b", "c", "d"].map(inners.cancels) == [1, 1, 1, 0])
    }

    @Test func aFailureOfTheLatestInnerFailsTheResultAndCancelsTheOuter() {
        let outer = ManualOuterFlow<String, TestError>()
        let inners = ManualInnerFlows<String, TestError>()
        let recorder = FlowRecorder(outer.flow.flatMapLatest { inners.flow($0) })
        outer.send("a")
        outer.send("b")
        inners.fail("a", TestError(code: 1))  // replaced: its emitter is cancelled
        inners.fail("b", TestError(code: 2))
        #expect(recorder.events == marbles("#", failure: TestError(code: 2)))
        #expect(outer.cancels == 1)
    }

    @Test func anOuterFailureFailsTheResultAndCancelsTheLatestInner() {
        let outer = ManualOuterFlow<String, TestError>()
        let inners = ManualInnerFlows<String, TestError>()
        let recorder = FlowRecorder(outer.flow.flatMapLatest { inners.flow($0) })
        outer.send("a")
        inners.send("a", "1")
        outer.fail(TestError(code: 3))
        #expect(recorder.events == marbles("1#", failure: TestError(code: 3)))
        #expect(inners.cancels("a") == 1)
    }

    @Test func aHundredThousandSynchronousSwitchesNeitherOverflowNorDeadlock() {
        let count = AtomicCounter()
        let finished = Box(false)
        _ = Flow<Int, Never>.sequence(0..<100_000).flatMapLatest { .just($0) }.subscribe(
            onValue: { _ in count.increment() },
            onCompletion: { _ in finished.value = true }
        )
        #expect(count.value == 100_000)
        #expect(finished.value)
    }

    /// 10,000 switches on one thread while two others keep sending into the latest inner and
    /// the one before it: deliveries never overlap, never go back to an older inner, every
    /// replaced inner is cancelled exactly once, and afterwards only the last inner is heard.
    @Test func tenThousandRapidSwitchesFromAnotherThreadStayCorrect() {
        let switches = 10_000
        let outer = ManualOuterFlow<Int, Never>()
        let emitters = SharedLock([FlowEmitter<Int, Never>?](repeating: nil, count: switches))
        let cancels = SharedLock([Int](repeating: 0, count: switches))
        let latest = SharedLock(-1)
        let flow = outer.flow.flatMapLatest { inner in
            Flow<Int, Never>.create { emitter in
                emitters.withLock { $0[inner] = emitter }
                latest.withLock { $0 = inner }
                emitter.onCancel { cancels.withLock { $0[inner] += 1 } }
            }
        }
        let inHandler = AtomicCounter()
        let overlaps = AtomicCounter()
        let wentBack = AtomicCounter()
        let received = SharedLock([Int]())
        let finished = Box(false)
        _ = flow.subscribe(
            onValue: { inner in
                inHandler.increment()
                if inHandler.value > 1 { overlaps.increment() }
                received.withLock { received in
                    if let previous = received.last, previous > inner { wentBack.increment() }
                    received.append(inner)
                }
                inHandler.decrement()
            },
            onCompletion: { _ in finished.value = true }
        )
        DispatchQueue.concurrentPerform(iterations: 3) { thread in
            if thread == 0 {
                for inner in 0..<switches { outer.send(inner) }
            } else {
                for round in 0..<20_000 {
                    let newest = latest.withLock { $0 }
                    guard newest >= 0 else { continue }
                    let target = round % 3 == 0 ? max(newest - 1, 0) : newest
                    emitters.withLock { $0[target] }?.send(target)
                }
            }
        }
        #expect(overlaps.value == 0)
        #expect(wentBack.value == 0)
        let last = switches - 1
        #expect(cancels.withLock { Array($0[..<last]) } == [Int](repeating: 1, count: last))
        #expect(cancels.withLock { $0[last] } == 0)
        let countBefore = received.withLock { $0.count }
        for inner in 0..<switches { emitters.withLock { $0[inner] }?.send(inner) }
        #expect(received.withLock { Array($0[countBefore...]) } == [last], "only the last inner is heard")
        outer.finish()
        #expect(!finished.value)
        emitters.withLock { $0[last] }?.finish()
        #expect(finished.value)
    }

    /// A replaced inner whose source kept nothing once cancelled (here `create`, whose emitter
    /// goes with its cancellation): nothing of it may reach a later inner. Each source is
    /// cancelled once, when replaced, and the later inners are heard.
    @Test func anInnerOnTheEndOfAReplacedOneKeepsNothingOfIt() {
        typealias Support = FlatMapSynchronousInnerTests
        let outer = ManualOuterFlow<Int, TestError>()
        let cancels = Support.CancelCounts()
        let inners = ManualInnerFlows<String, TestError>()
        let recorder = FlowRecorder(outer.flow.flatMapLatest { value in
            value < 4 ? Support.running("r\(value)", cancels) : inners.flow("m\(value)")
        })
        for value in 1...3 {
            outer.send(value)
            #expect((1...3).map { cancels["r\($0)"] } == (1...3).map { $0 < value ? 1 : 0 })
        }
        outer.send(4)
        outer.send(5)
        inners.send("m5", "x")
        inners.finish("m5")
        outer.finish()
        #expect(recorder.values == ["r1", "r2", "r3", "x"])
        #expect(recorder.events.last == .finished)
        #expect((1...3).map { cancels["r\($0)"] } == [1, 1, 1])
        #expect([inners.cancels("m4"), inners.cancels("m5"), outer.cancels] == [1, 0, 0])
    }

    #if DEBUG
    /// Replaced inners hold no reference to the subscription's storage: nothing stays alive
    /// once the subscription is cancelled.
    @Test func switchingAmongInnersThatKeepNothingLeavesNothingAlive() {
        let scope = LiveObjectScope()
        scope.track {
            let outer = ManualOuterFlow<Int, Never>()
            let recorder = FlowRecorder(outer.flow.flatMapLatest { _ in Flow<Int, Never>.never })
            for value in 1...4 { outer.send(value) }
            recorder.cancel()
        }
        #expect(scope.created > 0)
        #expect(scope.alive == 0)
    }
    #endif
}
