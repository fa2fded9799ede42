import Dispatch
import Testing
import AsyncBridge
import AsyncBridgeTesting

/// zip of two, three and four flows (tuples and transforms) and of a collection.
@Suite("Flow: zip", .timeLimit(.minutes(1)))
struct ZipTests: ManualSourcesSuite {
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

    @Test func zipOfThreeZipsInOrderAndFinishesWhenAFinishedSourceIsUsedUp() {
        let s = Self.sources(3)
        let recorder = FlowRecorder(Flow.zip(s[0].flow, s[1].flow, s[2].flow) { $0 + $1 + $2 })
        s[0].send("a"); s[0].send("b"); s[0].send("c")
        s[1].send("1"); s[1].send("2")
        s[2].send("x")
        s[1].finish()
        #expect(!recorder.isCompleted, "the second source still has a value to zip")
        s[2].send("y")
        #expect(recorder.events == [.value("a1x"), .value("b2y"), .finished])
        #expect(Self.cancels(s) == [1, 0, 1])
    }

    @Test func zipOfFourAsATupleFinishesAtOnceWhenASourceEndsWithNothingLeft() {
        let s = Self.sources(4)
        let zipped: Flow<(String, String, String, String), TestError> = s[0].flow.zip(s[1].flow, s[2].flow, s[3].flow)
        let recorder = FlowRecorder(zipped.map { $0 + $1 + $2 + $3 })
        for (index, source) in s.enumerated() { source.send("abcd".map(String.init)[index]) }
        s[0].send("e"); s[1].send("f")
        s[3].finish()
        #expect(recorder.events == [.value("abcd"), .finished])
        #expect(Self.cancels(s) == [1, 1, 1, 0])
    }

    /// Whichever source of four finishes with nothing left to zip ends all at once; its values
    /// still waiting are zipped first.
    @Test(arguments: 0..<4)
    func zipOfFourFinishesWhenAnySourceIsUsedUp(_ finishing: Int) {
        let s = Self.sources(4)
        let recorder = FlowRecorder(Flow.zip(s[0].flow, s[1].flow, s[2].flow, s[3].flow) { $0 + $1 + $2 + $3 })
        s[finishing].send("x")
        s[finishing].finish()
        for (index, source) in s.enumerated() where index != finishing { source.send("a"); source.send("b") }
        #expect(recorder.values == [(0..<4).map { $0 == finishing ? "x" : "a" }.joined()])
        #expect(recorder.isCompleted)
        #expect(Self.cancels(s) == (0..<4).map { $0 == finishing ? 0 : 1 }, "the others are cancelled once")
    }

    @Test func zipOfThreeFailsAndCancelsTheOthersOnce() {
        let s = Self.sources(3)
        let recorder = FlowRecorder(Flow.zip(s[0].flow, s[1].flow, s[2].flow).map { $0 + $1 + $2 })
        s[0].send("a"); s[1].send("b"); s[1].fail(TestError(code: 2)); s[2].send("c")
        #expect(recorder.events == [.failure(TestError(code: 2))])
        #expect(Self.cancels(s) == [1, 0, 1])
    }

    @Test func cancellingZipCancelsEverySourceOnce() {
        let s = Self.sources(4)
        let recorder = FlowRecorder(Flow.zip(s.map(\.flow)).map { $0.joined() })
        s[0].send("a")
        recorder.cancel()
        for source in s { source.send("b") }
        #expect(recorder.events.isEmpty)
        #expect(Self.cancels(s) == [1, 1, 1, 1])
    }

    @Test func zipOfACollectionSendsArrays() {
        let s = Self.sources(3)
        let recorder = FlowRecorder(Flow.zip(s.map(\.flow)).map { $0.joined() })
        s[0].send("a"); s[0].send("d"); s[0].finish()
        s[1].send("b"); s[1].send("e"); s[2].send("c")
        #expect(!recorder.isCompleted, "the first source still has a value to zip")
        s[2].send("f")
        #expect(recorder.events == [.value("abc"), .value("def"), .finished])
        #expect(Self.cancels(s) == [0, 1, 1])
    }

    @Test func zipOfSourcesOnSeveralThreadsZipsTheNthValues() {
        let s = (0..<3).map { _ in ManualFlow<Int>() }
        let seen = Box<[(Int, Int, Int)]>([])
        let token = Flow.zip(s[0].flow, s[1].flow, s[2].flow).subscribe(onValue: { value in
            seen.mutate { $0.append(value) }
        }, onCompletion: { _ in })
        DispatchQueue.concurrentPerform(iterations: 3) { index in
            for value in 0..<10_000 { s[index].send(value) }
        }
        let values = seen.value
        #expect(values.count == 10_000)
        #expect(values.enumerated().allSatisfy { $1.0 == $0 && $1.1 == $0 && $1.2 == $0 })
        token.cancel()
    }

    /// A zip whose downstream wants no more at a tuple that also uses up a finished source
    /// must not complete that downstream afterwards. Before the fix, the zips of two, three
    /// and of a collection sent `.finished` after the downstream had answered `.stop` and
    /// `prefix(1)` had cancelled it (`handleEvents` saw a completion after it had completed).
    @Test(arguments: [2, 3, 0])
    func aZipWhoseDownstreamStopsAtTheLastTupleIsNotCompletedAfterwards(arity: Int) {
        let a = ManualFlow<String>(), b = ManualFlow<String>(), c = ManualFlow<String>()
        let zipped: Flow<String, TestError> = switch arity {
        case 2: a.flow.zip(b.flow) { $0 + $1 }
        case 3: a.flow.zip(b.flow, c.flow) { $0 + $1 + $2 }
        default: Flow.zip([a.flow, b.flow, c.flow]).map { $0.joined() }
        }
        let completions = AtomicCounter()
        let recorder = FlowRecorder(zipped.handleEvents(onCompletion: { _ in completions.increment() }).prefix(1))
        a.send("a"); a.finish()
        b.send("b")
        if arity != 2 { c.send("c") }
        #expect(recorder.events == [.value(arity == 2 ? "ab" : "abc"), .finished])
        #expect(completions.value == 0, "prefix(1) wanted no more after the tuple: nothing may follow it")
    }

    /// Ten thousand values queued on one side, then taken by the other's values while more
    /// arrive behind them: every pair in order, each value used once.
    @Test func zipOfTwoTakesALongQueueInOrder() {
        let a = ManualFlow<Int>(), b = ManualFlow<Int>()
        let recorder = FlowRecorder(a.flow.zip(b.flow).map { $0 * 100_000 + $1 })
        for value in 0..<10_000 { a.send(value) }
        #expect(recorder.events.isEmpty)
        for value in 0..<5_000 { b.send(value) }
        for value in 10_000..<15_000 { a.send(value) }
        for value in 5_000..<15_000 { b.send(value) }
        #expect(recorder.values == (0..<15_000).map { $0 * 100_000 + $0 })
        #expect(!recorder.isCompleted)
        a.finish()
        #expect(recorder.isCompleted)
        #expect(a.cancels.value == 0 && b.cancels.value == 1)
    }
}
