import Dispatch
import Testing
import AsyncBridge
import AsyncBridgeTesting

/// The combining core as every entry point uses it: the forms of every arity, and the rules
/// they share.
@Suite("Flow: combineLatest and zip of every arity", .timeLimit(.minutes(1)))
struct CombiningCoreTests: ManualSourcesSuite {
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

    // MARK: the rules every arity shares

    /// zip of `s` through the form of its arity: two, three, four flows, or an array of more.
    static func zipped(_ s: [ManualFlow<String>]) -> Flow<String, TestError> {
        switch s.count {
        case 2: Flow.zip(s[0].flow, s[1].flow) { $0 + $1 }
        case 3: s[0].flow.zip(s[1].flow, s[2].flow).map { $0 + $1 + $2 }
        case 4: Flow.zip(s[0].flow, s[1].flow, s[2].flow, s[3].flow).map { $0 + $1 + $2 + $3 }
        default: Flow.zip(s.map(\.flow)).map { $0.joined() }
        }
    }

    /// combineLatest of `s` through the form of its arity, as ``zipped(_:)``.
    static func combined(_ s: [ManualFlow<String>]) -> Flow<String, TestError> {
        switch s.count {
        case 2: s[0].flow.combineLatest(s[1].flow).map { $0 + $1 }
        case 3: Flow.combineLatest(s[0].flow, s[1].flow, s[2].flow) { $0 + $1 + $2 }
        case 4: s[0].flow.combineLatest(s[1].flow, s[2].flow, s[3].flow) { $0 + $1 + $2 + $3 }
        default: Flow.combineLatest(s.map(\.flow)).map { $0.joined() }
        }
    }

    @Test(arguments: [2, 3, 4, 5])
    func zipOfEveryArityFinishesWithTheTupleThatUsesUpAFinishedSource(_ count: Int) {
        let s = Self.sources(count)
        let recorder = FlowRecorder(Self.zipped(s))
        s[count - 1].send("x"); s[count - 1].send("y"); s[count - 1].finish()
        for source in s.dropLast() { source.send("a") }
        #expect(recorder.events == [.value(String(repeating: "a", count: count - 1) + "x")])
        for source in s.dropLast() { source.send("b") }
        #expect(recorder.events == [
            .value(String(repeating: "a", count: count - 1) + "x"), .value(String(repeating: "b", count: count - 1) + "y"), .finished,
        ])
        #expect(Self.cancels(s) == Array(repeating: 1, count: count - 1) + [0])
    }

    @Test(arguments: [2, 3, 4, 5])
    func combineLatestOfEveryArityFinishesWhenAllHave(_ count: Int) {
        let s = Self.sources(count)
        let recorder = FlowRecorder(Self.combined(s))
        for source in s { source.send("a") }
        for source in s.dropLast() { source.finish() }
        s[count - 1].send("b")
        #expect(!recorder.isCompleted)
        s[count - 1].finish()
        let all = String(repeating: "a", count: count)
        #expect(recorder.events == [.value(all), .value(all.dropLast() + "b"), .finished])
        #expect(Self.cancels(s) == Array(repeating: 0, count: count))
    }

    @Test(arguments: [2, 3, 4, 5])
    func combineLatestOfEveryArityFinishesAtOnceWhenASourceEndsWithoutAValue(_ count: Int) {
        let s = Self.sources(count)
        let recorder = FlowRecorder(Self.combined(s))
        for source in s.dropFirst() { source.send("a") }
        s[0].finish()
        #expect(recorder.events == [.finished])
        #expect(Self.cancels(s) == [0] + Array(repeating: 1, count: count - 1))
    }

    @Test(arguments: [2, 3, 4, 5], ["zip", "combineLatest"])
    func everyArityFailsAtOnceAndCancelsTheOthers(_ count: Int, operator name: String) {
        let s = Self.sources(count)
        let recorder = FlowRecorder(name == "zip" ? Self.zipped(s) : Self.combined(s))
        s[0].send("a"); s[1].fail(TestError(code: 7)); s[0].send("b")
        #expect(recorder.events == [.failure(TestError(code: 7))])
        #expect(Self.cancels(s) == (0..<count).map { $0 == 1 ? 0 : 1 })
    }
}

/// The combining forms of this file, built around a closure that captures a tracked object,
/// release it and their sources after completion and after cancellation.
@Suite("Flow: combining many releases what it holds", .timeLimit(.minutes(1)))
struct CombiningLeakTests {
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
