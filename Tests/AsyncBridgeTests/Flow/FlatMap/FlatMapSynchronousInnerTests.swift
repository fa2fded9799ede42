@_spi(AsyncBridgeInternals) import AsyncBridge
import AsyncBridgeTesting
import Dispatch
import Testing

/// Inners that finish during their own subscribe, then the next one: nothing of one such inner
/// may leak into the next.
@Suite("Flow: flatMap inners that finish during their subscribe", .timeLimit(.minutes(1)))
struct FlatMapSynchronousInnerTests {
    /// Counts the cancel actions that ran, by key.
    final class CancelCounts: Sendable {
        private let counts = SharedLock([String: Int]())
        func ran(_ key: String) { counts.withLock { $0[key, default: 0] += 1 } }
        subscript(_ key: String) -> Int { counts.withLock { $0[key] ?? 0 } }
    }

    /// An inner that sends `key`, finishes, and only then hands back a cancel action (which must
    /// never run: it came after the completion).
    static func finishedAtOnce(_ key: String, _ cancels: CancelCounts) -> Flow<String, TestError> {
        Flow.create { emitter in
            emitter.send(key)
            emitter.finish()
            emitter.onCancel { cancels.ran(key) }
        }
    }

    /// An inner that sends `key` and keeps running until cancelled.
    static func running(_ key: String, _ cancels: CancelCounts) -> Flow<String, TestError> {
        Flow.create { emitter in
            emitter.send(key)
            emitter.onCancel { cancels.ran(key) }
        }
    }

    @Test(arguments: FlatMapVariant.allCases)
    func cancelActionsOfAFinishedInnerNeverReachTheNext(_ variant: FlatMapVariant) {
        let outer = ManualOuterFlow<Int, TestError>()
        let cancels = CancelCounts()
        let recorder = FlowRecorder(variant.apply(outer.flow) { value in
            value < 3 ? Self.finishedAtOnce("a\(value)", cancels) : Self.running("b\(value)", cancels)
        })
        outer.send(1)
        outer.send(2)
        outer.send(3)
        recorder.cancel()
        #expect(recorder.values == ["a1", "a2", "b3"])
        #expect(cancels["a1"] == 0)
        #expect(cancels["a2"] == 0)
        #expect(cancels["b3"] == 1)
        #expect(outer.cancels == 1)
    }

    /// An inner's subscription is made anew for the next inner only once nothing refers to it:
    /// here the first inner's source keeps its emitter, and a cancel action it hands back late
    /// must not land on the second inner's subscription.
    @Test(arguments: FlatMapVariant.allCases)
    func aFinishedInnerWhoseSourceStillHoldsItLendsNothingToTheNext(_ variant: FlatMapVariant) {
        let outer = ManualOuterFlow<Int, TestError>()
        let cancels = CancelCounts()
        let kept = Box<FlowEmitter<String, TestError>?>(nil)
        let recorder = FlowRecorder(variant.apply(outer.flow) { value in
            guard value == 1 else { return Self.running("b\(value)", cancels) }
            return Flow.create { emitter in
                kept.value = emitter
                emitter.send("a1")
                emitter.finish()
            }
        })
        outer.send(1)
        outer.send(2)
        kept.value?.onCancel { cancels.ran("a1") }
        recorder.cancel()
        #expect(recorder.values == ["a1", "b2"])
        #expect(cancels["a1"] == 0)
        #expect(cancels["b2"] == 1)
    }

    @Test(arguments: FlatMapVariant.allCases)
    func anInnerFinishingOnAnotherThreadDuringItsSubscribe(_ variant: FlatMapVariant) {
        let outer = ManualOuterFlow<Int, TestError>()
        let cancels = CancelCounts()
        let recorder = FlowRecorder(variant.apply(outer.flow) { value in
            guard value.isMultiple(of: 2) else { return Self.running("r\(value)", cancels) }
            return Flow.create { emitter in
                let done = DispatchSemaphore(value: 0)
                DispatchQueue.global().async {
                    emitter.send("t\(value)")
                    emitter.finish()
                    done.signal()
                }
                done.wait()
                emitter.onCancel { cancels.ran("t\(value)") }
            }
        })
        outer.send(0)
        outer.send(2)
        outer.send(3)
        recorder.cancel()
        #expect(recorder.values == ["t0", "t2", "r3"])
        #expect(cancels["t0"] == 0)
        #expect(cancels["t2"] == 0)
        #expect(cancels["r3"] == 1)
    }

    @Test(arguments: FlatMapVariant.allCases)
    func manyFinishedInnersThenOneThatFails(_ variant: FlatMapVariant) {
        let outer = ManualOuterFlow<Int, TestError>()
        let recorder = FlowRecorder(variant.apply(outer.flow) { value in
            value < 100 ? Flow.just("\(value)") : Flow.fail(TestError(code: 7))
        })
        for value in 0...100 { outer.send(value) }
        outer.send(101)  // after the failure: ignored
        #expect(recorder.values == (0..<100).map { "\($0)" })
        #expect(recorder.events.last == .failure(TestError(code: 7)))
        #expect(outer.cancels == 1)
    }

    @Test
    func aFinishedInnerBetweenRunningOnesKeepsMaxConcurrent() {
        let outer = ManualOuterFlow<String, TestError>()
        let inners = ManualInnerFlows<String, TestError>()
        let recorder = FlowRecorder(outer.flow.flatMap(maxConcurrent: 2) { key in
            key.hasPrefix("j") ? Flow.just(key) : inners.flow(key)
        })
        outer.send("a")
        outer.send("j1")
        outer.send("b")
        outer.send("j2")  // queued: a and b run
        outer.send("c")  // queued
        #expect(inners.running == ["a", "b"])
        inners.finish("a")  // j2 starts and finishes, then c starts
        #expect(inners.running == ["b", "c"])
        inners.finish("b")
        outer.finish()
        inners.finish("c")
        #expect(recorder.events == [.value("j1"), .value("j2"), .finished])
        #expect(inners.maxActive == 2)
    }

    /// An inner that fails on another thread while its subscribe returns: whichever comes
    /// first, the starter looking at the inner or the failure, the result fails (the starter
    /// must not take the failed inner for one that finished, and finish the result).
    @Test(arguments: [FlatMapVariant.flatMap, .concatMap, .flatMapLatest, .flatMapFirst])
    func anInnerFailingOnAnotherThreadAsItsSubscribeReturnsFailsTheResult(_ variant: FlatMapVariant) async {
        let failer = DispatchQueue(label: "FlatMapSynchronousInnerTests.failer")
        for round in 0..<2_000 {
            let recorder = FlowRecorder(variant.apply(Flow<Int, TestError>.just(round)) { value in
                Flow<String, TestError>.create { emitter in
                    failer.async { emitter.fail(TestError(code: value)) }
                    emitter.onCancel {}
                }
            })
            await recorder.waitForCompletion()
            #expect(recorder.events == [.failure(TestError(code: round))], "round \(round)")
            if recorder.events != [.failure(TestError(code: round))] { return }
        }
    }
}
