import Dispatch
import Testing
import AsyncBridge
import AsyncBridgeTesting

/// merge of a collection, of several flows and `merge(with:)`.
@Suite("Flow: merge", .timeLimit(.minutes(1)))
struct MergeTests: ManualSourcesSuite {
    @Test func mergeInterleavesAndFinishesWhenAllHave() {
        let a = ManualFlow<String>(), b = ManualFlow<String>()
        let recorder = FlowRecorder(a.flow.merge(with: b.flow))
        a.send("a"); b.send("x"); a.finish(); b.send("y")
        #expect(!recorder.isCompleted)
        b.finish()
        #expect(recorder.events == marbles("axy|"))
        #expect(a.cancels.value == 0 && b.cancels.value == 0, "nothing is cancelled after it completed")
    }

    @Test func mergeFailsAndCancelsTheOthers() {
        let a = ManualFlow<String>(), b = ManualFlow<String>()
        let recorder = FlowRecorder(Flow.merge([a.flow, b.flow]))
        a.send("a"); b.fail(); a.send("b")
        #expect(recorder.events == marbles("a#", failure: TestError()))
        #expect(a.cancels.value == 1 && b.cancels.value == 0)
    }

    @Test func mergeOfNothingFinishes() {
        #expect(FlowRecorder(Flow<Int, Never>.merge([])).events == [.finished])
    }

    @Test func mergeSerialisesSourcesOnManyThreads() {
        let sources = (0..<4).map { _ in ManualFlow<Int>() }
        let inside = AtomicCounter(), overlaps = AtomicCounter(), count = AtomicCounter()
        let token = Flow.merge(sources.map(\.flow)).subscribe(onValue: { _ in
            inside.increment()
            if inside.value > 1 { overlaps.increment() }
            count.increment()
            inside.decrement()
        }, onCompletion: { _ in })
        DispatchQueue.concurrentPerform(iterations: 4) { index in
            for value in 0..<2_000 { sources[index].send(value) }
        }
        #expect(overlaps.value == 0 && count.value == 8_000)
        token.cancel()
        #expect(sources.allSatisfy { $0.cancels.value == 1 })
    }

    @Test func prefixOnAMergeOfSynchronousSourcesStopsThem() {
        let merged = Flow.merge([Flow<Int, Never>.sequence(0..<1_000_000), .sequence(0..<1_000_000)])
        #expect(FlowRecorder(merged.prefix(2)).values == [0, 1])
    }

    @Test func mergeOfThreeFinishesWhenAllHave() {
        let s = Self.sources(3)
        let recorder = FlowRecorder(Flow.merge(s[0].flow, s[1].flow, s[2].flow))
        s[0].send("a"); s[2].send("b"); s[0].finish(); s[1].send("c"); s[1].finish()
        #expect(!recorder.isCompleted)
        s[2].finish()
        #expect(recorder.events == marbles("abc|"))
    }

    @Test func mergeWithSeveralFailsAndCancelsTheOthersOnce() {
        let s = Self.sources(3)
        let recorder = FlowRecorder(s[0].flow.merge(with: s[1].flow, s[2].flow))
        s[1].send("a"); s[2].fail(); s[0].send("b")
        #expect(recorder.events == marbles("a#", failure: TestError()))
        #expect(Self.cancels(s) == [1, 1, 0])
    }
}
