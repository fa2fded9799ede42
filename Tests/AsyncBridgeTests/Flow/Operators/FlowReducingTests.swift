import Testing
import AsyncBridge
import AsyncBridgeTesting

/// Subscribes to `flow`, runs `drive`, and returns what the subscriber saw; the subscriber
/// cancels its own subscription from inside its handler on the first value.
func eventsCancellingOnFirstValue<Element, Failure>(
    _ flow: Flow<Element, Failure>,
    driving drive: () -> Void
) -> [FlowEvent<Element, Failure>] {
    let events = Box<[FlowEvent<Element, Failure>]>([])
    let token = Box<CancellationToken?>(nil)
    token.value = flow.subscribe { event in
        events.mutate { $0.append(event) }
        if case .value = event { token.value?.cancel() }
    }
    drive()
    return events.value
}

/// A flow of the letters of a marble diagram, with a concrete failure type: Swift cannot
/// convert a non-throwing closure to `throws(Failure)` while `Failure` is still being inferred
/// in the same expression (as it is for `marbleFlow`'s).
func letters(_ diagram: String, failure: TestError = TestError()) -> Flow<String, TestError> {
    marbleFlow(diagram, failure: failure)
}

@Suite("Flow: reduce, collect, count, contains, allSatisfy, min, max, last, ignoreOutput, replaceEmpty, ifEmpty", .timeLimit(.minutes(1)))
struct FlowReducingTests {
    // MARK: reduce, collect, count

    @Test func reduceSendsTheResultWhenTheSourceFinishes() {
        let source = ManualFlow<Int>()
        let recorder = FlowRecorder(source.flow.reduce(10, +))
        source.send(1); source.send(2)
        #expect(recorder.events.isEmpty)
        source.finish()
        #expect(recorder.events == [.value(13), .finished])
        #expect(source.cancels.value == 0)
    }

    @Test func reduceOfNothingSendsTheInitialAndAFailurePassesWithNoResult() {
        #expect(FlowRecorder(letters("|").reduce("x", +)).events == marbles("x|"))
        #expect(FlowRecorder(letters("ab#").reduce("x", +)).events == marbles("#", failure: TestError()))
    }

    @Test func reduceTakesPlainAndTypedThrowingClosures() {
        let never = Flow<Int, Never>.sequence([1, 2, 3])
        #expect(FlowRecorder(never.reduce(0, +)).values == [6])
        #expect(FlowRecorder(never.reduce(0) { $0 + $1 }).values == [6])
        let typed = Flow<Int, TestError>.sequence([1, 2, 3])
        #expect(FlowRecorder(typed.reduce(0, +)).values == [6])
        let throwing = typed.reduce(0) { (sum, value) throws(TestError) in  // Swift infers `any Error` unless told
            if value == 2 { throw TestError(code: 2) }
            return sum + value
        }
        #expect(FlowRecorder(throwing).events == [.failure(TestError(code: 2))])
    }

    @Test func aThrowFailsAndCancelsTheSourceOnce() {
        let source = ManualFlow<Int>()
        let recorder = FlowRecorder(source.flow.reduce(0) { (sum, value) throws(TestError) in
            guard value >= 0 else { throw TestError(code: 3) }
            return sum + value
        })
        source.send(1); source.send(-1)
        #expect(recorder.events == [.failure(TestError(code: 3))])
        #expect(source.cancels.value == 1)
        source.send(2); source.finish()
        #expect(recorder.events == [.failure(TestError(code: 3))])
        #expect(source.cancels.value == 1)
    }

    @Test func collectSendsEveryValueOrAnEmptyArray() {
        #expect(FlowRecorder(letters("abc|").collect()).events == [.value(["a", "b", "c"]), .finished])
        #expect(FlowRecorder(letters("|").collect()).events == [.value([]), .finished])
        #expect(FlowRecorder(letters("ab#").collect()).events == [.failure(TestError())])
        #expect(FlowRecorder(Flow<Int, Never>.sequence(0..<10_000).collect()).values == [Array(0..<10_000)])
    }

    @Test func countCountsTheValues() {
        #expect(FlowRecorder(letters("abc|").count()).events == [.value(3), .finished])
        #expect(FlowRecorder(letters("|").count()).events == [.value(0), .finished])
        #expect(FlowRecorder(letters("a#").count()).events == [.failure(TestError())])
    }

    @Test func cancellingBeforeTheEndCancelsTheSourceAndDeliversNothing() {
        let source = ManualFlow<Int>()
        let recorder = FlowRecorder(source.flow.count())
        source.send(1)
        recorder.cancel()
        #expect(source.cancels.value == 1)
        source.finish()
        #expect(recorder.events.isEmpty)
    }

    @Test func aSubscriberThatCancelsOnTheResultSeesNoFinish() {
        let source = ManualFlow<Int>()
        let events = eventsCancellingOnFirstValue(source.flow.count()) { source.send(1); source.finish() }
        #expect(events == [.value(1)])
        let early = ManualFlow<Int>()
        #expect(eventsCancellingOnFirstValue(early.flow.contains(1)) { early.send(1) } == [.value(true)])
    }

    // MARK: contains, allSatisfy

    @Test func containsAnswersTrueAtTheFirstMatchAndCancelsTheSourceOnce() {
        let source = ManualFlow<Int>()
        let recorder = FlowRecorder(source.flow.contains(2))
        source.send(1)
        #expect(recorder.events.isEmpty)
        source.send(2)
        #expect(recorder.events == [.value(true), .finished])
        #expect(source.cancels.value == 1)
        source.send(2); source.finish()
        #expect(recorder.events == [.value(true), .finished])
        #expect(source.cancels.value == 1)
    }

    @Test func containsAnswersFalseAtTheFinishAndPassesAFailure() {
        #expect(FlowRecorder(letters("ab|").contains("c")).events == [.value(false), .finished])
        #expect(FlowRecorder(letters("|").contains("c")).events == [.value(false), .finished])
        #expect(FlowRecorder(letters("a#").contains("c")).events == [.failure(TestError())])
        #expect(FlowRecorder(letters("ac#").contains { $0 == "c" }).events == [.value(true), .finished])
    }

    /// Combine's order, not RxSwift's: the source is cancelled before the answer is sent.
    @Test func theSourceIsCancelledBeforeTheAnswerIsSent() {
        for build: @Sendable (Flow<Int, TestError>) -> Flow<Bool, TestError> in [{ $0.contains(1) }, { $0.allSatisfy { $0 < 1 } }] {
            let source = ManualFlow<Int>()
            let cancelsWhenAnswered = Box<[Int]>([])
            let recorder = FlowRecorder(build(source.flow).handleEvents(onValue: { _ in
                cancelsWhenAnswered.mutate { $0.append(source.cancels.value) }
            }))
            source.send(1)
            #expect(cancelsWhenAnswered.value == [1])
            #expect(recorder.isCompleted)
        }
    }

    @Test func aSynchronousSourceStopsAtTheAnswer() {
        let produced = AtomicCounter()
        let flow = Flow<Int, Never>.sequence(0..<1_000_000).map { value -> Int in
            produced.increment()
            return value
        }
        #expect(FlowRecorder(flow.contains(2)).values == [true])
        #expect(produced.value == 3)
    }

    @Test func allSatisfyAnswersFalseAtTheFirstMissAndTrueAtTheFinish() {
        let source = ManualFlow<Int>()
        let recorder = FlowRecorder(source.flow.allSatisfy { $0 < 3 })
        source.send(1); source.send(2)
        #expect(recorder.events.isEmpty)
        source.send(3)
        #expect(recorder.events == [.value(false), .finished])
        #expect(source.cancels.value == 1)
        source.send(4); source.finish()
        #expect(recorder.events == [.value(false), .finished])
        #expect(source.cancels.value == 1)
        #expect(FlowRecorder(letters("ab|").allSatisfy { $0 < "c" }).events == [.value(true), .finished])
        #expect(FlowRecorder(letters("|").allSatisfy { _ in false }).events == [.value(true), .finished])
        #expect(FlowRecorder(letters("a#").allSatisfy { $0 < "c" }).events == [.failure(TestError())])
    }

    @Test func aThrowingPredicateFailsAndCancelsTheSourceOnce() {
        for build: @Sendable (Flow<Int, TestError>) -> Flow<Bool, TestError> in [
            { $0.contains { (value) throws(TestError) in if value == 2 { throw TestError(code: 4) }; return false } },
            { $0.allSatisfy { (value) throws(TestError) in if value == 2 { throw TestError(code: 4) }; return true } },
        ] {
            let source = ManualFlow<Int>()
            let recorder = FlowRecorder(build(source.flow))
            source.send(1); source.send(2); source.send(3); source.finish()
            #expect(recorder.events == [.failure(TestError(code: 4))])
            #expect(source.cancels.value == 1)
        }
    }

    // MARK: min, max, last

    @Test func minAndMaxSendTheExtremeAtTheFinish() {
        let sources = (ManualFlow<Int>(), ManualFlow<Int>())
        let least = FlowRecorder(sources.0.flow.min()), greatest = FlowRecorder(sources.1.flow.max())
        for source in [sources.0, sources.1] { source.send(3); source.send(1); source.send(4); source.send(2) }
        #expect(least.events.isEmpty && greatest.events.isEmpty)
        sources.0.finish(); sources.1.finish()
        #expect(least.events == [.value(1), .finished])
        #expect(greatest.events == [.value(4), .finished])
    }

    @Test func minAndMaxOfNothingFinishWithNoValueAndPassAFailure() {
        #expect(FlowRecorder(letters("|").min()).events == marbles("|"))
        #expect(FlowRecorder(letters("|").max()).events == marbles("|"))
        #expect(FlowRecorder(letters("ab#").max()).events == marbles("#", failure: TestError()))
    }

    @Test func minAndMaxByKeepTheFirstOfEqualValues() {
        let pairs = Flow<(Int, String), Never>.sequence([(2, "a"), (1, "b"), (2, "c"), (1, "d")])
        #expect(FlowRecorder(pairs.min { $0.0 < $1.0 }.map(\.1)).values == ["b"])
        #expect(FlowRecorder(pairs.max { $0.0 < $1.0 }.map(\.1)).values == ["a"])
        let thrown = Flow<Int, TestError>.sequence([1, 2]).max { (_, _) throws(TestError) in throw TestError(code: 5) }
        #expect(FlowRecorder(thrown).events == [.failure(TestError(code: 5))])
    }

    @Test func lastSendsTheLastValueAtTheFinish() {
        let source = ManualFlow<String>()
        let recorder = FlowRecorder(source.flow.last())
        source.send("a"); source.send("b")
        #expect(recorder.events.isEmpty)
        source.finish()
        #expect(recorder.events == marbles("b|"))
        #expect(FlowRecorder(letters("|").last()).events == marbles("|"))
        #expect(FlowRecorder(letters("ab#").last()).events == marbles("#", failure: TestError()))
        #expect(FlowRecorder(letters("abcb|").last { $0 != "b" }).events == marbles("c|"))
    }

    // MARK: ignoreOutput

    @Test func ignoreOutputKeepsOnlyTheCompletion() {
        let source = ManualFlow<Int>()
        let recorder: FlowRecorder<Never, TestError> = FlowRecorder(source.flow.ignoreOutput())
        source.send(1); source.send(2)
        #expect(recorder.events.isEmpty)
        source.finish()
        #expect(recorder.events == [.finished])
        #expect(FlowRecorder(letters("ab#").ignoreOutput()).events == [.failure(TestError())])
    }

    // MARK: replaceEmpty, ifEmpty

    @Test func replaceEmptySendsTheValueOnlyWhenNothingCame() {
        #expect(FlowRecorder(letters("|").replaceEmpty(with: "x")).events == marbles("x|"))
        #expect(FlowRecorder(letters("ab|").replaceEmpty(with: "x")).events == marbles("ab|"))
        #expect(FlowRecorder(letters("#").replaceEmpty(with: "x")).events == marbles("#", failure: TestError()))
        let source = ManualFlow<String>()
        #expect(eventsCancellingOnFirstValue(source.flow.replaceEmpty(with: "x")) { source.finish() } == [.value("x")])
    }

    @Test func ifEmptySwitchesToTheOtherFlowOnlyWhenNothingCame() {
        let subscriptions = AtomicCounter()
        let other = Flow<String, TestError>.deferred {
            subscriptions.increment()
            return letters("xy#", failure: TestError(code: 6))
        }
        #expect(FlowRecorder(letters("|").ifEmpty(switchTo: other)).events
            == marbles("xy#", failure: TestError(code: 6)))
        #expect(subscriptions.value == 1)
        #expect(FlowRecorder(letters("ab|").ifEmpty(switchTo: other)).events == marbles("ab|"))
        #expect(FlowRecorder(letters("#").ifEmpty(switchTo: other)).events == marbles("#", failure: TestError()))
        #expect(subscriptions.value == 1, "the other flow is subscribed only when the source finished empty")
    }

    @Test func cancellingAfterTheSwitchCancelsTheOtherFlowOnly() {
        let source = ManualFlow<String>(), other = ManualFlow<String>()
        let recorder = FlowRecorder(source.flow.ifEmpty(switchTo: other.flow))
        source.finish()
        other.send("x")
        recorder.cancel()
        other.send("y"); other.finish()
        #expect(recorder.events == marbles("x"))
        #expect(source.cancels.value == 0 && other.cancels.value == 1)
    }
}

/// Each operator, around a closure that captures a tracked object, releases it (and its
/// source) after the source completes, after a cancellation and after it finished early; and
/// cancels its source once when it cancels it at all.
@Suite("Flow: reducing and materializing operators release what they hold", .timeLimit(.minutes(1)))
struct FlowReducingLeakTests {
    typealias Build = @Sendable (Flow<Int, TestError>, Tracked) -> Flow<Int, TestError>

    static let operators: [String: Build] = [
        "reduce": { flow, t in flow.reduce(0) { _ = t; return $0 + $1 } },
        "collect": { flow, t in flow.map { _ = t; return $0 }.collect().map(\.count) },
        "count": { flow, t in flow.map { _ = t; return $0 }.count() },
        "min(by:)": { flow, t in flow.min { _ = t; return $0 < $1 } },
        "max(by:)": { flow, t in flow.max { _ = t; return $0 < $1 } },
        "last(where:)": { flow, t in flow.last { _ = t; return $0 > 0 } },
        "ignoreOutput": { flow, t in flow.map { _ = t; return $0 }.ignoreOutput().count() },
        "replaceEmpty": { flow, t in flow.map { _ = t; return $0 }.replaceEmpty(with: 0) },
        "ifEmpty(switchTo:)": { flow, t in flow.ifEmpty(switchTo: Flow.just(0).map { _ = t; return $0 }) },
        "materialize+dematerialize": { flow, t in flow.map { _ = t; return $0 }.materialize().dematerialize() },
    ]

    /// Operators that finish early, and cancel their source, when it sends 2.
    static let finishingEarly: [String: Build] = [
        "contains(where:)": { flow, t in flow.contains { _ = t; return $0 == 2 }.map { $0 ? 1 : 0 } },
        "allSatisfy": { flow, t in flow.allSatisfy { _ = t; return $0 != 2 }.map { $0 ? 1 : 0 } },
        "reduce, throwing": { flow, t in flow.reduce(0) { (sum, value) throws(TestError) in _ = t; if value == 2 { throw TestError() }; return sum } },
        "dematerialize": { flow, t in flow.map { _ = t; return $0 == 2 ? .finished : .value($0) }.dematerialize() },
    ]

    enum Ending: Sendable, CaseIterable {
        case sourceCompletes, cancellation, earlyFinish
    }

    @Test(arguments: operators.keys.sorted(), [Ending.sourceCompletes, .cancellation])
    func releases(_ name: String, ending: Ending) throws {
        checkRelease(try #require(Self.operators[name]), name, ending)
    }

    @Test(arguments: finishingEarly.keys.sorted(), Ending.allCases)
    func releasesFinishingEarly(_ name: String, ending: Ending) throws {
        checkRelease(try #require(Self.finishingEarly[name]), name, ending)
    }

    /// Checks one operator, keeping its recorder (and so its token) alive throughout: the chain
    /// must let go of what it holds when it ends, not when its subscriber goes away.
    private func checkRelease(_ build: Build, _ name: String, _ ending: Ending) {
        let source = ManualFlow<Int>()
        let (recorder, tracked) = subscribe(build, to: source)
        source.send(1)
        switch ending {
        case .sourceCompletes: source.finish()
        case .cancellation: recorder.cancel()
        case .earlyFinish: source.send(2)
        }
        #expect(recorder.isCompleted == (ending != .cancellation), "\(name) completes when it should")
        #expect(tracked() == nil, "\(name) keeps its closure after \(ending)")
        #expect(source.cancels.value == (ending == .sourceCompletes ? 0 : 1), "\(name) cancels its source once, and only when it ends first")
    }

    /// Subscribes to what `build` makes of `source` around a tracked object that only the flow
    /// holds; returns the recorder and a weak look at the object.
    private func subscribe(_ build: Build, to source: ManualFlow<Int>) -> (FlowRecorder<Int, TestError>, () -> Tracked?) {
        let tracked = Tracked()
        return (FlowRecorder(build(source.flow, tracked)), { [weak tracked] in tracked })
    }
}
