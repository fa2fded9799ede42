import Testing
@testable import AsyncBridge

/// The ended subscription a flatMap keeps for its next inner, as a plain value: made anew only
/// when it has ended and nothing else refers to it.
@Suite("FlowSubscription.Spare")
struct FlowSubscriptionSpareTests {
    static func identity(_ subscription: FlowSubscription) -> ObjectIdentifier {
        ObjectIdentifier(subscription.state.buffer)
    }

    @Test func nothingKeptGivesANewSubscription() {
        var spare = FlowSubscription.Spare()
        #expect(!spare.take().isCancelled)
    }

    @Test(arguments: [true, false])
    func anEndedSubscriptionNothingElseHoldsIsMadeAnew(cancelled: Bool) {
        var spare = FlowSubscription.Spare()
        var ended: FlowSubscription? = FlowSubscription()
        let before = Self.identity(ended!)
        let ranBefore = Box(0)
        ended!.onCancel { ranBefore.value += 1 }
        if cancelled { ended!.cancel() } else { ended!.complete() }
        spare.keep(ended!)
        ended = nil

        let reused = spare.take()
        #expect(Self.identity(reused) == before)
        #expect(!reused.isCancelled, "active again")
        let ranAfter = Box(0)
        reused.onCancel { ranAfter.value += 1 }
        #expect(ranAfter.value == 0, "an action registered now waits for the cancellation")
        reused.cancel()
        #expect(ranAfter.value == 1)
        #expect(ranBefore.value == (cancelled ? 1 : 0), "what it held before ran or was dropped when it ended")
        #expect(Self.identity(spare.take()) != before, "taken once")
    }

    @Test func anEndedSubscriptionStillHeldElsewhereIsNotMadeAnew() {
        var spare = FlowSubscription.Spare()
        let ended = FlowSubscription()
        ended.complete()
        spare.keep(ended)
        let taken = spare.take()
        #expect(Self.identity(taken) != Self.identity(ended))
        #expect(!taken.isCancelled)
        ended.onCancel { Issue.record("a completed subscription runs nothing") }
        ended.cancel()
    }

    @Test func aSubscriptionThatHasNotEndedIsNotMadeAnew() {
        var spare = FlowSubscription.Spare()
        var running: FlowSubscription? = FlowSubscription()
        let before = Self.identity(running!)
        let ran = Box(0)
        running!.onCancel { ran.value += 1 }
        spare.keep(running!)
        running = nil
        #expect(Self.identity(spare.take()) != before)
        #expect(ran.value == 0)
    }
}
