import Testing
@_spi(AsyncBridgeInternals) import AsyncBridge

/// The ring behind every consumer buffer (`flow.values`, `BroadcastChannel`), zip's queues and
/// `receive(on:)`'s events.
struct RingBufferTests {
    /// Appends `values`, then takes everything.
    private func drained(_ ring: inout SharedQueue<Int>) -> [Int] {
        var taken: [Int] = []
        while let value = ring.popFirst() { taken.append(value) }
        return taken
    }

    @Test func wrapsAroundWithoutGrowing() {
        var ring = SharedQueue<Int>()
        for value in 0..<16 { ring.append(value) }
        #expect(ring.capacity == 16)
        for expected in 0..<10 { #expect(ring.popFirst() == expected) }
        for value in 16..<26 { ring.append(value) }  // ten slots past the end: at the start
        #expect(ring.capacity == 16, "the freed slots at the start are reused")
        #expect(ring.count == 16)
        #expect(drained(&ring) == Array(10..<26))
    }

    @Test func growsWhileWrappedKeepingTheOrder() {
        var ring = SharedQueue<Int>()
        for value in 0..<16 { ring.append(value) }
        for expected in 0..<5 { #expect(ring.popFirst() == expected) }
        for value in 16..<60 { ring.append(value) }  // wraps, then grows twice
        #expect(ring.capacity == 64)
        #expect(drained(&ring) == Array(5..<60))
    }

    @Test func anEmptiedSmallRingKeepsItsSlotsAndALargeOneReleasesThem() {
        var small = SharedQueue<Int>()
        for value in 0..<100 { small.append(value) }
        #expect(drained(&small) == Array(0..<100))
        #expect(small.capacity == 128, "kept: a ring swapped back and forth stops allocating")

        var large = SharedQueue<Int>()
        let count = SharedQueue<Int>.retainedCapacity + 1
        for value in 0..<count { large.append(value) }
        #expect(large.capacity > SharedQueue<Int>.retainedCapacity)
        #expect(drained(&large) == Array(0..<count))
        #expect(large.capacity == 0, "a burst's slots are released once it is consumed")
        large.append(7)
        #expect(large.capacity == 16)
        #expect(large.popFirst() == 7)
    }

    @Test func aCopyIsIndependent() {
        var original = SharedQueue<Int>()
        for value in 0..<16 { original.append(value) }
        _ = original.popFirst()
        var copy = original
        copy.append(16)  // full: grows its own storage
        #expect(copy.popFirst() == 1)
        var other = original
        #expect(other.popFirst() == 1)  // room, but shared: copied first
        #expect(drained(&original) == Array(1..<16), "untouched by either copy")
        #expect(drained(&copy) == Array(2..<17))
        #expect(drained(&other) == Array(2..<16))
    }

    @Test func releasesEveryElementOnBothSidesOfTheWrapAndOnlyOnce() {
        let deaths = AtomicCounter()
        var ring = SharedQueue<Counted>()
        for _ in 0..<16 { ring.append(Counted(deaths)) }
        for _ in 0..<10 { _ = ring.popFirst() }
        #expect(deaths.value == 10, "a taken element is the caller's")
        for _ in 0..<15 { ring.append(Counted(deaths)) }  // wraps, then grows by moving
        #expect(ring.capacity == 32)
        do {
            var copy = ring
            copy.append(Counted(deaths))  // copies the elements into storage of its own
            #expect(deaths.value == 10)
        }
        #expect(deaths.value == 11, "the copy released its own element, and no shared one")
        ring = SharedQueue()
        #expect(deaths.value == 32, "every element left was released once")
    }

    @Test(arguments: [0, 5, 12])
    func removingInTheMiddleKeepsTheOrderAcrossTheWrap(taken: Int) {
        var ring = SharedQueue<Int>()
        for value in 0..<16 { ring.append(value) }
        for expected in 0..<taken { #expect(ring.popFirst() == expected) }
        for value in 16..<(16 + taken) { ring.append(value) }  // wrapped when `taken` > 0
        var expected = Array(taken..<(16 + taken))
        for offset in [3, 0, 9, 9] {
            #expect(ring.remove(at: offset) == expected.remove(at: offset))
            #expect(ring.first == expected.first)
        }
        #expect(drained(&ring) == expected)
        #expect(ring.first == nil)
    }

    @Test func removingInTheMiddleOfASharedRingLeavesTheCopyAlone() {
        var ring = SharedQueue<Int>()
        for value in 0..<8 { ring.append(value) }
        var copy = ring
        #expect(copy.remove(at: 2) == 2)
        #expect(drained(&ring) == Array(0..<8))
        #expect(drained(&copy) == [0, 1, 3, 4, 5, 6, 7])
    }

    @Test func takingAllLeavesAnEmptyQueueAndHandsOverEveryElement() {
        let deaths = AtomicCounter()
        var ring = SharedQueue<Counted>()
        for _ in 0..<20 { ring.append(Counted(deaths)) }
        var taken = ring.takeAll()
        #expect(ring.isEmpty && ring.capacity == 0)
        #expect(taken.count == 20 && deaths.value == 0)
        _ = taken.remove(at: 7)
        #expect(deaths.value == 1, "the removed element is the caller's, released once")
        taken = SharedQueue()
        #expect(deaths.value == 20)
    }
}
