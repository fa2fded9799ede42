import Testing
@testable import AsyncBridge

/// The first-writer-wins slot behind a token's cancel action, a chained future's inner
/// cancellation and a timed-out future's race.
struct ClosableSlotTests {
    @Test func theFirstToCloseTakesWhatItHeldAndEveryLaterCallerIsTurnedAway() {
        let slot = ClosableSlot<Int>()
        #expect(slot.fill(1) == .some(nil), "an open slot takes a value")
        #expect(slot.close() == .some(1), "the first to close gets it")
        #expect(slot.close() == nil, "a second close gets nothing")
        #expect(slot.fill(2) == nil, "a closed slot refuses a value: the caller disposes of it")
        #expect(slot.close() == nil)
    }

    @Test func closingAnEmptySlotWinsWithNothing() {
        let slot = ClosableSlot<Int>()
        #expect(slot.close() == .some(nil))
        #expect(slot.fill(1) == nil)
    }

    @Test func fillingAgainHandsBackTheValueItReplaces() {
        let slot = ClosableSlot(1)
        #expect(slot.fill(2) == .some(1))
        #expect(slot.close() == .some(2))
    }

    @Test func aClosedSlotKeepsNothingAlive() {
        let deaths = AtomicCounter()
        let slot = ClosableSlot(Counted(deaths))
        do {
            let held = slot.close()
            #expect(held != nil && deaths.value == 0, "the closer holds the value")
        }
        #expect(deaths.value == 1, "released once the closer dropped it: the slot kept none")
        #expect(slot.fill(Counted(deaths)) == nil)
        #expect(deaths.value == 2, "a refused value is not kept either")
    }

    @Test func oneOfManyConcurrentClosersWins() async {
        let slot = ClosableSlot(7)
        let winners = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<8 { group.addTask { slot.close() == .some(7) ? 1 : 0 } }
            return await group.reduce(0, +)
        }
        #expect(winners == 1)
    }
}
