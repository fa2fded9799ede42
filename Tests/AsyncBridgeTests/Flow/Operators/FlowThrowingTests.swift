import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("Flow: tryMap, tryCompactMap, tryFilter, tryScan, tryRemoveDuplicates, tryFirst, tryCatch", .timeLimit(.minutes(1)))
struct FlowThrowingTests {
    /// Throws `TestError(code: value)` for the values in `failing`.
    static func check(_ value: Int, failing: Set<Int>) throws(TestError) -> Int {
        if failing.contains(value) { throw TestError(code: value) }
        return value
    }

    @Test func eachOperatorTransformsValuesAndPassesTheCompletion() {
        let numbers = Flow<Int, TestError>.sequence([1, 2, 2, 3, 4])
        #expect(FlowRecorder(numbers.tryMap { v throws(TestError) in v * 10 }).events == [10, 20, 20, 30, 40].map { .value($0) } + [.finished])
        #expect(FlowRecorder(numbers.tryCompactMap { v throws(TestError) in v.isMultiple(of: 2) ? v : nil }).values == [2, 2, 4])
        #expect(FlowRecorder(numbers.tryFilter { v throws(TestError) in v > 2 }).values == [3, 4])
        #expect(FlowRecorder(numbers.tryScan(0) { sum, v throws(TestError) in sum + v }).values == [1, 3, 5, 8, 12])
        #expect(FlowRecorder(numbers.tryRemoveDuplicates { a, b throws(TestError) in a == b }).values == [1, 2, 3, 4])
        #expect(FlowRecorder(numbers.tryFirst { v throws(TestError) in v > 1 }).events == [.value(2), .finished])
        let failing = marbleFlow("a#", failure: TestError(code: 9))
        #expect(FlowRecorder(failing.tryMap { v throws(TestError) in v + v }).events == [.value("aa"), .failure(TestError(code: 9))])
    }

    /// Every operator, built so that its closure throws `TestError(code: 3)` at the value 3.
    static let throwingAtThree: [(String, @Sendable (Flow<Int, TestError>) -> Flow<Int, TestError>)] = [
        ("tryMap", { $0.tryMap { v throws(TestError) in try check(v, failing: [3]) } }),
        ("tryCompactMap", { $0.tryCompactMap { v throws(TestError) in try check(v, failing: [3]) } }),
        ("tryFilter", { $0.tryFilter { v throws(TestError) in try check(v, failing: [3]) > 0 } }),
        ("tryScan", { $0.tryScan(0) { _, v throws(TestError) in try check(v, failing: [3]) } }),
        ("tryRemoveDuplicates", { $0.tryRemoveDuplicates { _, v throws(TestError) in try check(v, failing: [3]) < 0 } }),
        ("tryFirst(where:)", { $0.tryFirst { v throws(TestError) in try check(v, failing: [3]) > 5 } }),
    ]

    @Test(arguments: throwingAtThree.map(\.0))
    func aThrowCancelsTheUpstreamFirstThenFailsWithTheTypedErrorAndNothingFollows(_ name: String) throws {
        let build = try #require(Self.throwingAtThree.first { $0.0 == name }?.1)
        let log = Box<[String]>([])
        let source = ManualFlow<Int>()
        let flow = build(source.flow.handleEvents(onCancel: { log.mutate { $0.append("upstream cancelled") } }))
        let recorder = FlowRecorder(flow.handleEvents(onCompletion: { _ in log.mutate { $0.append("failure delivered") } }))
        source.send(1)
        source.send(2)
        source.send(3)
        source.send(4)
        source.finish()
        #expect(recorder.events.last == .failure(TestError(code: 3)), "\(name)")
        #expect(recorder.events.filter { $0 == .failure(TestError(code: 3)) }.count == 1)
        #expect(!recorder.values.contains(4), "\(name) lets nothing through after its throw")
        #expect(source.cancels.value == 1, "\(name) cancels its upstream once")
        #expect(log.value == ["upstream cancelled", "failure delivered"], "\(name): the upstream stops before the failure is seen")
    }

    @Test func aThrowStopsASynchronousSource() {
        let produced = AtomicCounter()
        let flow = Flow<Int, TestError>.sequence(0..<1_000_000).handleEvents(onValue: { _ in produced.increment() })
        let recorder = FlowRecorder(flow.tryMap { v throws(TestError) in try Self.check(v, failing: [2]) })
        #expect(recorder.events == [.value(0), .value(1), .failure(TestError(code: 2))])
        #expect(produced.value == 3)
    }

    @Test func cancellingCancelsTheUpstreamOnceAndDeliversNothingMore() {
        let source = ManualFlow<Int>()
        let recorder = FlowRecorder(source.flow.tryMap { v throws(TestError) in try Self.check(v, failing: [2]) })
        source.send(1)
        recorder.cancel()
        source.send(2)
        source.finish()
        #expect(recorder.events == [.value(1)])
        #expect(source.cancels.value == 1)
    }

    @Test func tryScanStartsEachSubscriptionFromTheInitialValue() {
        let flow = Flow<Int, TestError>.sequence([1, 2]).tryScan(10) { sum, v throws(TestError) in sum + v }
        #expect(FlowRecorder(flow).values == [11, 13])
        #expect(FlowRecorder(flow).values == [11, 13])
    }

    @Test func tryCatchContinuesWithTheHandlersFlowOrFailsWithItsTypedError() {
        struct Other: Error, Equatable { var code: Int }
        let failing = Flow<Int, TestError>.fail(TestError(code: 1))
        let recovered = failing.tryCatch { error throws(Other) in .just(error.code * 100) }
        #expect(FlowRecorder(recovered).events == [.value(100), .finished])
        let rethrown = failing.tryCatch { error throws(Other) -> Flow<Int, Other> in throw Other(code: error.code + 1) }
        #expect(FlowRecorder(rethrown).events == [.failure(Other(code: 2))])
        #expect(FlowRecorder(Flow<Int, TestError>.just(5).tryCatch { _ throws(Other) in .empty }).events == [.value(5), .finished])
    }

    @Test func wideningIsWrittenOutAndKeepsTheFailure() {
        @Sendable func untyped(_ value: Int) throws -> Int {
            if value == 2 { throw TestError(code: 2) }
            return value
        }
        let widened = Flow<Int, TestError>.sequence([1, 2, 3]).setFailureType(to: (any Error).self).tryMap { try untyped($0) }
        let events = FlowRecorder(widened).events
        #expect(events.count == 2)
        guard case .failure(let error) = events.last else { return #expect(Bool(false)) }
        #expect(error as? TestError == TestError(code: 2))
        let neverFailing = Flow<Int, Never>.just(2).setFailureType(to: (any Error).self).tryMap { try untyped($0) }
        #expect(FlowRecorder(neverFailing).events.count == 1)
    }
}

/// The throwing operators release their closures and upstream after completion and after
/// cancellation (the shape of FlowOperatorLeakTests).
@Suite("Flow: the throwing operators release what they hold", .timeLimit(.minutes(1)))
struct FlowThrowingLeakTests {
    typealias Build = @Sendable (Flow<Int, TestError>, Tracked) -> Flow<Int, TestError>

    static let operators: [(String, Build)] = [
        ("tryMap", { flow, t in flow.tryMap { v throws(TestError) in _ = t; return v } }),
        ("tryCompactMap", { flow, t in flow.tryCompactMap { v throws(TestError) in _ = t; return v } }),
        ("tryFilter", { flow, t in flow.tryFilter { _ throws(TestError) in _ = t; return true } }),
        ("tryScan", { flow, t in flow.tryScan(0) { s, v throws(TestError) in _ = t; return s + v } }),
        ("tryRemoveDuplicates", { flow, t in flow.tryRemoveDuplicates { a, b throws(TestError) in _ = t; return a == b } }),
        ("tryFirst(where:)", { flow, t in flow.tryFirst { v throws(TestError) in _ = t; return v > 100 } }),
        ("tryCatch", { flow, t in flow.tryCatch { _ throws(TestError) in _ = t; return .empty } }),
        ("tryMap, thrown", { flow, t in flow.tryMap { v throws(TestError) in _ = t; throw TestError(code: v) } }),
    ]

    @Test(arguments: operators.map(\.0), [false, true])
    func releasesAfterCompletionOrCancellation(_ name: String, cancelling: Bool) throws {
        let build = try #require(Self.operators.first { $0.0 == name }?.1)
        let source = ManualFlow<Int>()
        expectReleased("\(name) after \(cancelling ? "cancellation" : "completion")") { tracked in
            let recorder = FlowRecorder(build(source.flow, tracked))
            source.send(1)
            if cancelling { recorder.cancel() } else { source.finish() }
        }
        let thrown = name == "tryMap, thrown"
        #expect(source.cancels.value == (cancelling || thrown ? 1 : 0), "\(name) cancels its source once, and only when it throws or is cancelled")
    }
}
