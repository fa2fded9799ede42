// The white-box tests (`Flow(run:)`, `FlowSubscription`) need `@testable`: debug builds only
// (the release run of the tests builds the library without testability).
#if DEBUG
@_spi(AsyncBridgeInternals) @testable import AsyncBridge
#else
@_spi(AsyncBridgeInternals) import AsyncBridge
#endif
import AsyncBridgeTesting
import Dispatch
import Testing

/// `flatMapLatest`'s switch: what a source may keep of a replaced inner, racing senders,
/// re-entrant cancel actions.
@Suite("Flow: flatMapLatest switching away from a running inner", .timeLimit(.minutes(1)))
struct FlatMapLatestSwitchTests {
    #if DEBUG
    /// A source that keeps its subscription (not its subscriber): once its inner is replaced,
    /// that subscription must stay cancelled, and an action registered on it later must run
    /// at once. White box (`Flow(run:)`, `FlowSubscription` are internal): the library's own
    /// sources and operators are the ones that could do this.
    @Test func aReplacedInnersSubscriptionKeptAloneStaysCancelled() {
        let kept = SharedLock<[FlowSubscription]>([])
        let outer = ManualOuterFlow<Int, Never>()
        let recorder = FlowRecorder(outer.flow.flatMapLatest { _ in
            Flow<Int, Never>(run: { subscriber in kept.withLock { $0.append(subscriber.subscription) } })
        })
        outer.send(1)
        outer.send(2)
        outer.send(3)
        let subscriptions = kept.withLock { $0 }
        #expect(subscriptions.count == 3)
        let replacedCancelled = subscriptions.prefix(2).map(\.isCancelled)
        #expect(replacedCancelled == [true, true], "replaced inners stay cancelled")
        #expect(!subscriptions[2].isCancelled)
        let ran = SharedLock(false)
        subscriptions[0].onCancel { ran.withLock { $0 = true } }
        #expect(ran.withLock { $0 }, "a cancel action registered late on a replaced inner runs at once")
        recorder.cancel()
        #expect(recorder.events.isEmpty)
    }

    #endif

    /// An old inner's value racing the switch (whose new inner sends at once) on another
    /// thread, then sent late: values of a replaced inner never follow a later inner's (each
    /// value is its inner's index).
    @Test func aReplacedInnersRacingAndLateValuesNeverFollowALaterInnersValue() {
        let rounds = 2_000
        let emitters = SharedLock<[Int: FlowEmitter<Int, Never>]>([:])
        let outer = ManualOuterFlow<Int, Never>()
        // One event at a time: a delivery never starts while another runs.
        let delivery = SharedLock((running: false, overlaps: 0, values: [Int]()))
        let token = outer.flow.flatMapLatest { index in
            Flow<Int, Never>.create { emitter in
                emitters.withLock { $0[index] = emitter }
                emitter.send(index)  // during the switch, racing the old inner's value
            }
        }.subscribe { event in
            delivery.withLock { state in
                if state.running { state.overlaps += 1 }
                state.running = true
                if case .value(let value) = event { state.values.append(value) }
            }
            delivery.withLock { $0.running = false }
        }
        outer.send(0)
        for round in 0..<rounds {
            let old = emitters.withLock { $0[round] }
            DispatchQueue.concurrentPerform(iterations: 2) { thread in
                if thread == 0 { outer.send(round + 1) } else { old?.send(round) }
            }
            old?.send(round)  // late: dropped
        }
        token.cancel()
        let (_, overlaps, values) = delivery.withLock { $0 }
        let outOfOrder = zip(values, values.dropFirst()).filter { $0 > $1 }.map { "\($0) then \($1)" }
        #expect(outOfOrder == [], "a replaced inner's value after a later inner's")
        #expect(values.last == rounds)
        #expect(overlaps == 0)
    }

    /// Downstream cancels on another thread while a switch runs (many rounds): every inner
    /// subscribed is cancelled, and so is the outer.
    @Test func cancellingWhileSwitchingCancelsEveryInner() {
        for _ in 0..<300 {
            let subscribed = SharedLock(0)
            let cancels = SharedLock(0)
            let outer = ManualOuterFlow<Int, Never>()
            let recorder = FlowRecorder(outer.flow.flatMapLatest { index in
                countedInner(index, subscribed: subscribed, cancels: cancels)
            })
            for index in 0..<3 { outer.send(index) }
            DispatchQueue.concurrentPerform(iterations: 2) { thread in
                if thread == 0 { outer.send(3) } else { recorder.cancel() }
            }
            #expect(cancels.withLock { $0 } == subscribed.withLock { $0 })
            #expect(outer.cancels == 1)
            #expect(!recorder.isCompleted)
        }
    }

    /// The replaced inner's cancel action cancels the whole subscription, during the switch:
    /// nothing is delivered after, the new inner is cancelled (or never runs), and the source
    /// stops.
    @Test func aReplacedInnersCancelActionCancellingEverythingEndsTheSwitch() {
        let recorderBox = SharedLock<FlowRecorder<Int, Never>?>(nil)
        let subscribed = SharedLock(0)
        let cancels = SharedLock(0)
        let outer = ManualOuterFlow<Int, Never>()
        let recorder = FlowRecorder(outer.flow.flatMapLatest { index in
            countedInner(index, subscribed: subscribed, cancels: cancels) {
                if index == 1 { recorderBox.withLock { $0 }?.cancel() }
            }
        })
        recorderBox.withLock { $0 = recorder }
        outer.send(0)
        outer.send(1)
        outer.send(2)  // replaces inner 1, whose cancel action cancels it all
        outer.send(3)  // ignored
        #expect(recorder.values == [0, 1])
        #expect(outer.cancels == 1)
        #expect(cancels.withLock { $0 } == subscribed.withLock { $0 }, "every inner subscribed was cancelled")
        #expect(!recorder.isCompleted)
        recorderBox.withLock { $0 = nil }
    }

    /// The replaced inner's cancel action sends the next outer value (re-entrant switch,
    /// queued by the outer source): each inner runs after the one it replaced.
    @Test func aReplacedInnersCancelActionSendingTheNextOuterValue() {
        let outerBox = SharedLock<ManualOuterFlow<Int, Never>?>(nil)
        let outer = ManualOuterFlow<Int, Never>()
        outerBox.withLock { $0 = outer }
        let recorder = FlowRecorder(outer.flow.flatMapLatest { index in
            Flow<Int, Never>.create { emitter in
                emitter.send(index)
                emitter.onCancel { if index < 5 { outerBox.withLock { $0 }?.send(index + 10) } }
            }
        })
        outer.send(0)
        outer.send(1)
        outer.finish()
        #expect(recorder.values == [0, 1, 10, 11])
        recorder.cancel()
        outerBox.withLock { $0 = nil }
    }

    /// The outer finishes while a later inner runs: the result waits for it, then finishes.
    @Test func theOuterFinishingWhileALaterInnerRuns() {
        let emitters = SharedLock<[Int: FlowEmitter<Int, Never>]>([:])
        let outer = ManualOuterFlow<Int, Never>()
        let recorder = FlowRecorder(outer.flow.flatMapLatest { index in
            Flow<Int, Never>.create { emitter in emitters.withLock { $0[index] = emitter } }
        })
        for index in 0..<4 { outer.send(index) }
        outer.finish()
        #expect(!recorder.isCompleted)
        emitters.withLock { $0[2] }?.send(2)  // replaced: dropped
        emitters.withLock { $0[3] }?.send(3)
        emitters.withLock { $0[3] }?.finish()
        #expect(recorder.events == [.value(3), .finished])
    }

    /// An inner that sends `index`, counting its subscriptions in `subscribed` and its
    /// cancellations in `cancels` (then running `onCancel`).
    func countedInner(
        _ index: Int,
        subscribed: SharedLock<Int>,
        cancels: SharedLock<Int>,
        onCancel: @escaping @Sendable () -> Void = {}
    ) -> Flow<Int, Never> {
        Flow<Int, Never>.create { emitter in
            subscribed.withLock { $0 += 1 }
            emitter.send(index)
            emitter.onCancel {
                cancels.withLock { $0 += 1 }
                onCancel()
            }
        }
    }
}
