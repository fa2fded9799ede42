import Dispatch
import Testing
import AsyncBridge
import AsyncBridgeTesting

/// combineLatest of two, three and four flows (tuples and transforms) and of a collection.
@Suite("Flow: combineLatest", .timeLimit(.minutes(1)))
struct CombineLatestTests: ManualSourcesSuite {
    @Test func combineLatestPairsLatestValues() {
        let a = ManualFlow<String>(), b = ManualFlow<Int>()
        let recorder = FlowRecorder(a.flow.combineLatest(b.flow).map { "\($0)\($1)" })
        a.send("a"); a.send("b"); b.send(1); a.send("c"); b.send(2)
        a.finish()
        #expect(!recorder.isCompleted)
        b.finish()
        #expect(recorder.events == [.value("b1"), .value("c1"), .value("c2"), .finished])
    }

    @Test func combineLatestFinishesWhenASourceEndsWithoutAValue() {
        let a = ManualFlow<String>(), b = ManualFlow<Int>()
        let recorder = FlowRecorder(a.flow.combineLatest(b.flow).map { "\($0)\($1)" })
        a.send("a"); b.finish()
        #expect(recorder.events == [.finished])
        #expect(a.cancels.value == 1)
    }

    @Test func combineLatestOfThreeSendsTheLatestOfEachOnceAllHaveSent() {
        let s = Self.sources(3)
        let recorder = FlowRecorder(Flow.combineLatest(s[0].flow, s[1].flow, s[2].flow) { $0 + $1 + $2 })
        s[0].send("a"); s[1].send("b"); s[0].send("c")
        #expect(recorder.events.isEmpty)
        s[2].send("d"); s[1].send("e"); s[2].send("f")
        s[0].finish(); s[1].finish()
        #expect(!recorder.isCompleted)
        s[2].send("g"); s[2].finish()
        #expect(recorder.events == [.value("cbd"), .value("ced"), .value("cef"), .value("ceg"), .finished])
        #expect(Self.cancels(s) == [0, 0, 0], "nothing is cancelled after it completed")
    }

    @Test func combineLatestOfFourAsATuple() {
        let s = Self.sources(4)
        let combined: Flow<(String, String, String, String), TestError> = Flow.combineLatest(s[0].flow, s[1].flow, s[2].flow, s[3].flow)
        let recorder = FlowRecorder(combined.map { $0 + $1 + $2 + $3 })
        s[0].send("a"); s[1].send("b"); s[2].send("c"); s[3].send("d"); s[2].send("e")
        #expect(recorder.events == [.value("abcd"), .value("abed")])
    }

    @Test func combineLatestOfDifferentTypes() {
        let names = ManualFlow<String>(), ages = ManualFlow<Int>(), flags = ManualFlow<Bool>()
        let combined: Flow<(String, Int, Bool), TestError> = names.flow.combineLatest(ages.flow, flags.flow)
        let recorder = FlowRecorder(combined.map { "\($0)\($1)\($2)" })
        names.send("a"); ages.send(1); flags.send(true); ages.send(2)
        #expect(recorder.values == ["a1true", "a2true"])
    }

    @Test(arguments: [3, 4])
    func combineLatestFinishesAtOnceWhenASourceEndsWithoutAValue(_ count: Int) {
        let s = Self.sources(count)
        let recorder = FlowRecorder(Flow.combineLatest(s.map(\.flow)))
        for source in s.dropLast() { source.send("a") }
        s[count - 1].finish()
        #expect(recorder.events == [.finished])
        #expect(Self.cancels(s) == Array(repeating: 1, count: count - 1) + [0], "the others are cancelled once")
    }

    /// Whichever source of four ends without a value ends all at once.
    @Test(arguments: 0..<4)
    func combineLatestOfFourFinishesAtOnceWhenAnySourceEndsWithoutAValue(_ silent: Int) {
        let s = Self.sources(4)
        let recorder = FlowRecorder(Flow.combineLatest(s[0].flow, s[1].flow, s[2].flow, s[3].flow) { $0 + $1 + $2 + $3 })
        for (index, source) in s.enumerated() where index != silent { source.send("a") }
        s[silent].finish()
        #expect(recorder.events == [.finished])
        #expect(Self.cancels(s) == (0..<4).map { $0 == silent ? 0 : 1 }, "the others are cancelled once")
    }

    @Test func combineLatestOfThreeFinishesAtOnceWhenASourceEndsWithoutAValue() {
        let s = Self.sources(3)
        let recorder = FlowRecorder(Flow.combineLatest(s[0].flow, s[1].flow, s[2].flow).map { $0 + $1 + $2 })
        s[0].send("a"); s[1].finish()
        #expect(recorder.events == [.finished])
        #expect(Self.cancels(s) == [1, 0, 1])
        s[0].send("b"); s[2].send("c")
        #expect(recorder.events == [.finished])
    }

    @Test func combineLatestOfFourFailsAndCancelsTheOthersOnce() {
        let s = Self.sources(4)
        let recorder = FlowRecorder(s[0].flow.combineLatest(s[1].flow, s[2].flow, s[3].flow).map { $0 + $1 + $2 + $3 })
        s[0].send("a"); s[2].fail(TestError(code: 3)); s[0].send("b"); s[1].fail()
        #expect(recorder.events == [.failure(TestError(code: 3))])
        #expect(Self.cancels(s) == [1, 1, 0, 1])
    }

    @Test func cancellingCombineLatestCancelsEverySourceOnceAndDeliversNothingMore() {
        let s = Self.sources(3)
        let recorder = FlowRecorder(Flow.combineLatest(s[0].flow, s[1].flow, s[2].flow) { $0 + $1 + $2 })
        s[0].send("a"); s[1].send("b"); s[2].send("c")
        recorder.cancel()
        recorder.cancel()
        s[0].send("d"); s[0].finish()
        #expect(recorder.events == [.value("abc")])
        #expect(Self.cancels(s) == [1, 1, 1])
    }

    @Test func aValueSentFromTheSubscriberIsDeliveredAfterTheCurrentOne() {
        let s = Self.sources(3)
        let seen = Box<[String]>([])
        let token = Flow.combineLatest(s[0].flow, s[1].flow, s[2].flow) { $0 + $1 + $2 }.subscribe(onValue: { value in
            seen.mutate { $0.append("<" + value) }
            if value == "abc" { s[0].send("d") }
            seen.mutate { $0.append(value + ">") }
        }, onCompletion: { _ in })
        s[0].send("a"); s[1].send("b"); s[2].send("c")
        #expect(seen.value == ["<abc", "abc>", "<dbc", "dbc>"])
        token.cancel()
    }

    @Test func combineLatestOfACollectionSendsArrays() {
        let s = Self.sources(3)
        let recorder = FlowRecorder(Flow.combineLatest(s.map(\.flow)).map { $0.joined() })
        s[0].send("a"); s[1].send("b"); s[2].send("c"); s[1].send("d")
        for source in s { source.finish() }
        #expect(recorder.events == [.value("abc"), .value("adc"), .finished])
    }

    @Test func combineLatestOfSourcesOnSeveralThreadsKeepsEachSourcesOrder() {
        let s = (0..<3).map { _ in ManualFlow<Int>() }
        let seen = Box<[(Int, Int, Int)]>([])
        let inside = AtomicCounter(), overlaps = AtomicCounter()
        let token = Flow.combineLatest(s[0].flow, s[1].flow, s[2].flow).subscribe(onValue: { value in
            inside.increment()
            if inside.value > 1 { overlaps.increment() }
            seen.mutate { $0.append(value) }
            inside.decrement()
        }, onCompletion: { _ in })
        for source in s { source.send(0) }
        DispatchQueue.concurrentPerform(iterations: 3) { index in
            for value in 1...10_000 { s[index].send(value) }
        }
        let values = seen.value
        #expect(overlaps.value == 0)
        #expect(values.count == 30_001, "one tuple for the first complete set, then one per value")
        #expect(zip(values, values.dropFirst()).allSatisfy { $0.0 <= $1.0 && $0.1 <= $1.1 && $0.2 <= $1.2 })
        #expect(values.last.map { [$0.0, $0.1, $0.2] } == [10_000, 10_000, 10_000])
        token.cancel()
        #expect(s.allSatisfy { $0.cancels.value == 1 })
    }

    @Test func combiningReleasesEverythingAfterCancellation() {
        weak var captured: Tracked?
        let a = ManualFlow<Int>(), b = ManualFlow<Int>()
        do {
            let tracked = Tracked()
            captured = tracked
            let recorder = FlowRecorder(a.flow.combineLatest(b.flow).map { value -> Int in _ = tracked; return value.0 })
            a.send(1)
            recorder.cancel()
        }
        #expect(captured == nil)
        #expect(a.cancels.value == 1 && b.cancels.value == 1)
    }
}
