import Testing
import AsyncBridge
import AsyncBridgeTesting

/// Every operator, built around a closure that captures a tracked object, must release that
/// closure and its upstream after completion and after cancellation (contract 5). (`delay`, which
/// finishes later than its source, has its own test in FlowDelayTests.)
@Suite("Flow: every operator releases what it holds", .timeLimit(.minutes(1)))
struct FlowOperatorLeakTests {
    static let operators: [LeakCheckedOperator] = [
        ("map", { flow, t in flow.map { _ = t; return $0 } }),
        ("compactMap", { flow, t in flow.compactMap { _ = t; return $0 } }),
        ("filter", { flow, t in flow.filter { _ = t; return $0 > -1 } }),
        ("scan", { flow, t in flow.scan(0) { _ = t; return $0 + $1 } }),
        ("prefix", { flow, t in flow.map { _ = t; return $0 }.prefix(10) }),
        ("first(where:)", { flow, t in flow.first { _ = t; return $0 > 100 } }),
        ("dropFirst", { flow, t in flow.map { _ = t; return $0 }.dropFirst() }),
        ("removeDuplicates", { flow, t in flow.removeDuplicates { _ = t; return $0 == $1 } }),
        ("prepend", { flow, t in flow.map { _ = t; return $0 }.prepend(0) }),
        ("handleEvents", { flow, t in flow.handleEvents(onValue: { _ in _ = t }) }),
        ("mapError", { flow, t in flow.mapError { _ = t; return $0 } }),
        ("catch", { flow, t in flow.catch { _ in _ = t; return .empty } }),
        ("merge", { flow, t in flow.merge(with: Flow<Int, TestError>.sequence([2]).map { _ = t; return $0 }) }),
        ("combineLatest", { flow, t in flow.combineLatest(.just(1)).map { _ = t; return $0.0 } }),
        ("zip", { flow, t in flow.zip(Flow<Int, TestError>.sequence(0..<100)).map { _ = t; return $0.0 } }),
        ("withLatestFrom", { flow, t in flow.withLatestFrom(.just(1)).map { _ = t; return $0.0 } }),
        ("flatMap", { flow, t in flow.flatMap { _ = t; return .just($0) } }),
        ("concatMap", { flow, t in flow.concatMap { _ = t; return .just($0) } }),
        ("flatMapLatest", { flow, t in flow.flatMapLatest { _ = t; return .just($0) } }),
        ("flatMapFirst", { flow, t in flow.flatMapFirst { _ = t; return .just($0) } }),
        ("share", { flow, t in flow.map { _ = t; return $0 }.share(replay: 1) }),
        ("debounce", { flow, t in flow.map { _ = t; return $0 }.debounce(for: .seconds(1), clock: ManualClock()) }),
        ("throttle", { flow, t in flow.map { _ = t; return $0 }.throttle(for: .seconds(1), clock: ManualClock(), latest: true) }),
        ("timeout", { flow, t in flow.map { _ = t; return $0 }.timeout(.seconds(1), clock: ManualClock(), switchingTo: .empty) }),
        ("retry", { flow, t in flow.map { _ = t; return $0 }.retry(.fixed(.seconds(1)), maxAttempts: 2, clock: ManualClock()) }),
    ]

    @Test(arguments: operators.map(\.name))
    func releasesAfterCompletion(_ name: String) throws {
        try expectReleasedAfterCompletion(name, in: Self.operators)
    }

    @Test(arguments: operators.map(\.name))
    func releasesAfterCancellation(_ name: String) throws {
        try expectReleasedAfterCancellation(name, in: Self.operators)
    }
}
