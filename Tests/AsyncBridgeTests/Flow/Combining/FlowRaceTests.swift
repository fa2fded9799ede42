import Testing
import Dispatch
import AsyncBridge
import AsyncBridgeTesting

@Suite("Flow: race", .timeLimit(.minutes(1)))
struct FlowRaceTests {
    @Test func theFirstValueWinsAndTheOthersAreCancelledAtOnce() {
        let a = ManualFlow<String>(), b = ManualFlow<String>(), c = ManualFlow<String>()
        let recorder = FlowRecorder(Flow.race([a.flow, b.flow, c.flow]))
        b.send("x")
        #expect(a.cancels.value == 1 && c.cancels.value == 1 && b.cancels.value == 0)
        a.send("y")
        b.send("z"); b.finish()
        #expect(recorder.events == marbles("xz|"))
        #expect(a.cancels.value == 1 && b.cancels.value == 0 && c.cancels.value == 1)
    }

    @Test func aCompletionWinsToo() {
        let a = ManualFlow<String>(), b = ManualFlow<String>()
        let finished = FlowRecorder(a.flow.race(with: b.flow))
        a.finish()
        b.send("x")
        #expect(finished.events == marbles("|"))
        #expect(b.cancels.value == 1)

        let c = ManualFlow<String>(), d = ManualFlow<String>()
        let failed = FlowRecorder(c.flow.race(with: d.flow))
        d.fail(TestError(code: 6))
        #expect(failed.events == [.failure(TestError(code: 6))])
        #expect(c.cancels.value == 1)
    }

    @Test func aFlowThatSendsDuringItsSubscriptionWinsBeforeTheRestAreSubscribed() {
        let subscriptions = AtomicCounter()
        let flow = Flow.race([marbleFlow("ab|"), counting(marbleFlow("xy|"), subscriptions)])
        #expect(FlowRecorder(flow).events == marbles("ab|"))
        #expect(subscriptions.value == 0)
    }

    /// RxSwift's `amb` of nothing never ends.
    @Test func aRaceOfNothingFinishes() {
        #expect(FlowRecorder(Flow<Int, Never>.race([])).events == [.finished])
    }

    @Test func cancellationBeforeAWinnerCancelsEveryFlowOnce() {
        let a = ManualFlow<String>(), b = ManualFlow<String>()
        let recorder = FlowRecorder(a.flow.race(with: b.flow))
        recorder.cancel()
        a.send("x")
        #expect(recorder.events.isEmpty)
        #expect(a.cancels.value == 1 && b.cancels.value == 1)
    }

    @Test func aLoserSendingFromInsideTheWinnersHandlerIsIgnored() {
        let a = ManualFlow<String>(), b = ManualFlow<String>()
        let recorder = ReactingRecorder(a.flow.race(with: b.flow)) { event in
            guard event == .value("a") else { return }
            b.send("x")
            a.send("b")
        }
        a.send("a")
        #expect(recorder.events == marbles("ab"))
        #expect(recorder.overlaps.value == 0)
    }

    @Test func anEventALoserSentBeforeItWasCancelledNeverReachesDownstream() {
        let b = ManualFlow<String>(), c = ManualFlow<String>()
        // The first loser's cancel action makes `c` send while the race cancels its losers,
        // before `c`'s turn: the event is in the race's queue when `c` is cancelled.
        let a = Flow<String, TestError>.create { emitter in emitter.onCancel { c.send("z") } }
        let recorder = FlowRecorder(Flow.race([a, b.flow, c.flow]))
        b.send("x")
        #expect(recorder.events == marbles("x"))
        #expect(c.cancels.value == 1)
    }

    @Test func aTieFromTwoThreadsHasExactlyOneWinner() {
        for _ in 0..<300 {
            let flows = [ManualFlow<String>(), ManualFlow<String>()]
            let recorder = ReactingRecorder(Flow.race(flows.map(\.flow))) { _ in }
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                for _ in 0..<20 { flows[index].send(index == 0 ? "a" : "b") }
            }
            let values = recorder.events.compactMap { if case .value(let value) = $0 { value } else { nil } }
            let winner = values.first == "a" ? 0 : 1
            #expect(values == Array(repeating: winner == 0 ? "a" : "b", count: 20), "every value, all from the winner")
            #expect(flows[winner].cancels.value == 0 && flows[1 - winner].cancels.value == 1)
            #expect(recorder.overlaps.value == 0)
            recorder.cancel()
            #expect(flows[winner].cancels.value == 1 && flows[1 - winner].cancels.value == 1)
        }
    }
}
