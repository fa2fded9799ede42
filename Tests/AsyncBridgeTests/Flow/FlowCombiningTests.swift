import Dispatch
import Testing
import AsyncBridge
import AsyncBridgeTesting

/// A flow whose values the test sends by hand, with a count of cancellations.
final class ManualFlow<Element: Sendable>: Sendable {
    let cancels = AtomicCounter()
    private let emitter = Box<FlowEmitter<Element, TestError>?>(nil)

    var flow: Flow<Element, TestError> {
        Flow.create { [emitter, cancels] sink in
            emitter.value = sink
            return { cancels.increment() }
        }
    }

    func send(_ value: Element) { emitter.value?.send(value) }
    func finish() { emitter.value?.finish() }
    func fail(_ error: TestError = TestError()) { emitter.value?.fail(error) }
}

@Suite("Flow: merge, combineLatest, zip, withLatestFrom", .timeLimit(.minutes(1)))
struct FlowCombiningTests {
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

    @Test func zipPairsInOrderAndFinishesWhenNoPairCanCome() {
        let a = ManualFlow<String>(), b = ManualFlow<Int>()
        let recorder = FlowRecorder(a.flow.zip(b.flow).map { "\($0)\($1)" })
        a.send("a"); a.send("b"); a.send("c"); b.send(1); a.finish()
        #expect(!recorder.isCompleted)
        b.send(2)
        #expect(!recorder.isCompleted)
        b.send(3)
        #expect(recorder.events == [.value("a1"), .value("b2"), .value("c3"), .finished])
        #expect(b.cancels.value == 1 && a.cancels.value == 0)
    }

    @Test func zipFails() {
        let a = ManualFlow<String>(), b = ManualFlow<Int>()
        let recorder = FlowRecorder(a.flow.zip(b.flow).map { "\($0)\($1)" })
        a.send("a"); b.fail(TestError(code: 5))
        #expect(recorder.events == [.failure(TestError(code: 5))])
    }

    @Test func withLatestFromSamplesTheOtherFlow() {
        let taps = ManualFlow<String>(), form = ManualFlow<Int>()
        let recorder = FlowRecorder(taps.flow.withLatestFrom(form.flow).map { "\($0)\($1)" })
        taps.send("a"); form.send(1); taps.send("b"); form.send(2); form.finish(); taps.send("c"); taps.finish()
        #expect(recorder.events == [.value("b1"), .value("c2"), .finished])
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
