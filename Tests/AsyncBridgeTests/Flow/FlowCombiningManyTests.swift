import Dispatch
import Testing
import AsyncBridge
import AsyncBridgeTesting

/// combineLatest, zip and merge over more than two flows: the forms of three and four flows,
/// the transform forms and the collection forms.
@Suite("Flow: combineLatest, zip and merge of many", .timeLimit(.minutes(1)))
struct FlowCombiningManyTests {
    /// Three or four manual sources of letters.
    static func sources(_ count: Int) -> [ManualFlow<String>] {
        (0..<count).map { _ in ManualFlow<String>() }
    }

    static func cancels(_ sources: [ManualFlow<String>]) -> [Int] {
        sources.map(\.cancels.value)
    }

    // MARK: combineLatest

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

    // MARK: zip

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

    @Test func transformFormsOfEveryArity() {
        let a = LiveSubject<String, TestError>(), b = LiveSubject<Int, TestError>()
        let c = LiveSubject<Bool, TestError>(), d = LiveSubject<Double, TestError>()
        let flows: [Flow<String, TestError>] = [
            a.flow.combineLatest(b.flow) { "\($0)\($1)" },
            Flow.combineLatest(a.flow, b.flow) { "\($0)\($1)" },
            a.flow.combineLatest(b.flow, c.flow) { "\($0)\($1)\($2)" },
            a.flow.combineLatest(b.flow, c.flow, d.flow) { "\($0)\($1)\($2)\($3)" },
            Flow.combineLatest(a.flow, b.flow, c.flow, d.flow).map { "\($0)\($1)\($2)\($3)" },
            a.flow.zip(b.flow) { "\($0)\($1)" },
            Flow.zip(a.flow, b.flow) { "\($0)\($1)" },
            a.flow.zip(b.flow, c.flow) { "\($0)\($1)\($2)" },
            a.flow.zip(b.flow, c.flow, d.flow) { "\($0)\($1)\($2)\($3)" },
            Flow.zip(a.flow, b.flow, c.flow, d.flow) { "\($0)\($1)\($2)\($3)" },
        ]
        let recorders = flows.map(FlowRecorder.init)
        a.send("a"); b.send(1); c.send(true); d.send(0.5)
        #expect(recorders.map(\.values) == [
            ["a1"], ["a1"], ["a1true"], ["a1true0.5"], ["a1true0.5"],
            ["a1"], ["a1"], ["a1true"], ["a1true0.5"], ["a1true0.5"],
        ])
    }

    // MARK: overloads

    @Test func theTwoFlowFormsStillResolve() {
        let a = LiveSubject<String, TestError>(), b = LiveSubject<Int, TestError>()
        let pairs: [Flow<(String, Int), TestError>] = [
            a.flow.combineLatest(b.flow), Flow.combineLatest(a.flow, b.flow),
            a.flow.zip(b.flow), Flow.zip(a.flow, b.flow),
        ]
        let recorders = pairs.map { FlowRecorder($0.map { "\($0)\($1)" }) }
        let transformed = FlowRecorder(a.flow.combineLatest(b.flow) { "\($0)\($1)" })
        a.send("a"); b.send(1)
        #expect(recorders.map(\.values) == Array(repeating: ["a1"], count: 4))
        #expect(transformed.values == ["a1"])
    }

    // MARK: collections

    @Test func combineLatestOfACollectionSendsArrays() {
        let s = Self.sources(3)
        let recorder = FlowRecorder(Flow.combineLatest(s.map(\.flow)).map { $0.joined() })
        s[0].send("a"); s[1].send("b"); s[2].send("c"); s[1].send("d")
        for source in s { source.finish() }
        #expect(recorder.events == [.value("abc"), .value("adc"), .finished])
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

    @Test func combiningNoFlowsFinishesAtOnce() {
        #expect(FlowRecorder(Flow<Int, Never>.combineLatest([])).events == [.finished])
        #expect(FlowRecorder(Flow<Int, Never>.zip([])).events == [.finished])
    }

    @Test func combiningOneFlowWrapsEachValue() {
        let latest = FlowRecorder(Flow.combineLatest([marbleFlow("ab|", failure: TestError())]).map { $0.joined() })
        let zipped = FlowRecorder(Flow.zip([marbleFlow("ab|", failure: TestError())]).map { $0.joined() })
        #expect(latest.events == marbles("ab|"))
        #expect(zipped.events == marbles("ab|"))
    }

    // MARK: merge

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

    // MARK: concurrency

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
}

/// The combining forms of this file, built around a closure that captures a tracked object,
/// release it and their sources after completion and after cancellation.
@Suite("Flow: combining many releases what it holds", .timeLimit(.minutes(1)))
struct FlowCombiningManyLeakTests {
    static let operators: [LeakCheckedOperator] = [
        ("combineLatest(_:_:_:)", { flow, t in Flow.combineLatest(flow, .just(1), .just(2)).map { _ = t; return $0.0 } }),
        ("combineLatest transform", { flow, t in flow.combineLatest(.just(1), .just(2)) { _ = t; return $0 + $1 + $2 } }),
        ("combineLatest of four", { flow, t in Flow.combineLatest(flow, .just(1), .just(2), .just(3)) { _ = t; return $0 + $1 + $2 + $3 } }),
        ("combineLatest([])", { flow, t in Flow.combineLatest([flow, .just(1), .just(2)]).map { _ = t; return $0[0] } }),
        ("zip(_:_:_:)", { flow, t in flow.zip(.sequence(0..<100), .sequence(0..<100)).map { _ = t; return $0.0 } }),
        ("zip transform", { flow, t in Flow.zip(flow, .sequence(0..<100), .sequence(0..<100)) { _ = t; return $0 + $1 + $2 } }),
        ("zip of four", { flow, t in flow.zip(.sequence(0..<100), .sequence(0..<100), .sequence(0..<100)) { _ = t; return $0 + $1 + $2 + $3 } }),
        ("zip([])", { flow, t in Flow.zip([flow, .sequence(0..<100)]).map { _ = t; return $0[0] } }),
        ("merge(_:_:_:)", { flow, t in Flow.merge(flow, .just(1), Flow<Int, TestError>.just(2).map { _ = t; return $0 }) }),
    ]

    @Test(arguments: operators.map(\.name))
    func releasesAfterCompletion(_ name: String) throws {
        try expectReleasedAfterCompletion(name, in: Self.operators, sendingValues: true)
    }

    @Test(arguments: operators.map(\.name))
    func releasesAfterCancellation(_ name: String) throws {
        try expectReleasedAfterCancellation(name, in: Self.operators)
    }
}
