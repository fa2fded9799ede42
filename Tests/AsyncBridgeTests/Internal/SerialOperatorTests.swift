import Dispatch
import Testing
import AsyncBridgeTesting
@testable import AsyncBridge

/// The one serial-operator helper behind the fan-ins and the time-based operators, on its own:
/// its handler sees events one at a time, nothing after the end, and its timer's ticks in turn
/// with the sources' events.
@Suite(.timeLimit(.minutes(1)))
struct SerialOperatorTests {
    /// A downstream that records what reaches it.
    static func recordingDownstream(
        _ received: Box<[String]>,
        subscription: FlowSubscription = FlowSubscription()
    ) -> FlowSubscriber<String, TestError> {
        FlowSubscriber(
            subscription: subscription,
            receive: { value in
                received.mutate { $0.append(value) }
                return .more
            },
            complete: { completion in
                switch completion {
                case .finished: received.mutate { $0.append("finished") }
                case .failure: received.mutate { $0.append("failed") }
                }
            }
        )
    }

    @Test func anEventFromAnotherThreadWaitsWhileTheHandlerIsBusy() async {
        let received = Box<[String]>([])
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let returned = DispatchSemaphore(value: 0)
        let fanIn = FanIn<String, String, TestError>(
            downstream: Self.recordingDownstream(received), sourceCount: 2
        ) { fanIn, event in
            fanIn.send(event)
            if event == "first" {
                entered.signal()
                release.wait()  // busy until the test has submitted from the other thread
            }
        }
        DispatchQueue(label: "first source").async {
            _ = fanIn.submit("first")
            returned.signal()
        }
        await wait(for: entered)
        #expect(fanIn.submit("second") == .more, "queued: the submitter returns at once")
        #expect(received.value == ["first"], "nothing is handled while the handler is busy")
        release.signal()
        await wait(for: returned)
        #expect(received.value == ["first", "second"], "handled by the busy thread, after its event")
    }

    @Test func nothingReachesTheHandlerOrDownstreamAfterTheEnd() {
        let received = Box<[String]>([])
        let handled = Box<[String]>([])
        let fanIn = FanIn<String, String, TestError>(
            downstream: Self.recordingDownstream(received), sourceCount: 2
        ) { fanIn, event in
            handled.mutate { $0.append(event) }
            if event == "end" {
                fanIn.end(.finished)
                _ = fanIn.submit("after the end, from the handler")
            } else {
                fanIn.send(event)
            }
        }
        #expect(fanIn.submit("a") == .more)
        #expect(fanIn.submit("end") == .stop, "the submitter learns the operator has ended")
        #expect(fanIn.submit("b") == .stop)
        #expect(handled.value == ["a", "end"], "nor what the handler submitted after ending")
        #expect(received.value == ["a", "finished"])
        #expect(fanIn.sources.map(\.isCancelled) == [true, true], "every source is cancelled")
    }

    @Test func aCancelledDownstreamClosesTheOperatorAndGetsNoCompletion() {
        let received = Box<[String]>([])
        let subscription = FlowSubscription()
        let fanIn = FanIn<String, String, TestError>(
            downstream: Self.recordingDownstream(received, subscription: subscription), sourceCount: 1
        ) { fanIn, event in fanIn.send(event) }
        _ = fanIn.submit("a")
        subscription.cancel()
        #expect(fanIn.submit("b") == .stop)
        fanIn.end(.finished)
        #expect(received.value == ["a"])
    }

    @Test func theTimersTicksArriveInTurnWithTheSourcesEvents() async {
        let clock = ManualClock()
        let source = ManualFlow<String>()
        let seen = Box<[String]>([])
        let ticked = DispatchSemaphore(value: 0)
        let subscription = FlowSubscription()
        do {  // the operator is held by its subscription only, as in an operator's subscribe
            let timed = TimedOperator(
                downstream: Self.recordingDownstream(Box([]), subscription: subscription),
                clock: clock,
                tolerance: nil
            ) { timed, input, now in
                switch input {
                case .value(let value):
                    seen.mutate { $0.append("\(value)@\(now.offset)") }
                    timed.arm(now.advanced(by: .seconds(1)))
                case .completion:
                    seen.mutate { $0.append("completed@\(now.offset)") }
                case .tick:
                    seen.mutate { $0.append("tick@\(now.offset)") }
                    ticked.signal()
                }
            }
            timed.subscribe(to: source.flow)
        }
        source.send("a")
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        await wait(for: ticked)
        source.send("b")
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(2))
        await wait(for: ticked)
        source.send("c")
        // The timer's task may still be inside the drain after its tick: then `c` waits there,
        // and that task handles it (arming the next deadline) before it sleeps again.
        await clock.waitForSleepers(1)
        #expect(seen.value == ["a@0.0 seconds", "tick@1.0 seconds", "b@1.0 seconds", "tick@3.0 seconds", "c@3.0 seconds"])
        subscription.cancel()
        #expect(clock.sleeperCount == 0, "the cancellation ended the timer's task's sleep")
    }
}
