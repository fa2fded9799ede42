@testable import AsyncBridge
import Testing

/// `FlatMapStateMachine.startReturned(finishing:)`: a starter whose inner finished during its
/// subscribe reports the finish with its return, and the machine decides as if the inner had
/// finished (freeing its slot) before the starter returned.
@Suite("State machines: flatMap, a starter reporting its inner's finish")
struct FlatMapStateMachineStartReturnedTests {
    struct Failure: Error, Equatable {}

    typealias Machine = FlatMapStateMachine<Int, Int, Failure>

    static func machine(_ strategy: FlatMapStrategy) -> Machine {
        Machine(strategy: strategy, transform: { .just($0) }, outer: FlowSubscription())
    }

    static func startedValue(_ action: Machine.Action) -> Int? {
        if case .start(let start) = action { return start.value }
        return nil
    }

    static func startedID(_ action: Machine.Action) -> UInt64? {
        if case .start(let start) = action { return start.id }
        return nil
    }

    @Test
    func theFreedSlotStartsTheNextWaitingValue() throws {
        var machine = Self.machine(.merge(maxConcurrent: 1))
        let first = try #require(Self.startedID(machine.outerValue(1).0))
        #expect(Self.startedValue(machine.outerValue(2).0) == nil)  // waits: the one slot is taken
        let next = machine.startReturned(finishing: first)
        #expect(Self.startedValue(next) == 2)
    }

    @Test
    func withoutTheFinishTheSlotStaysTaken() throws {
        var machine = Self.machine(.merge(maxConcurrent: 1))
        _ = try #require(Self.startedID(machine.outerValue(1).0))
        #expect(Self.startedValue(machine.outerValue(2).0) == nil)
        let next = machine.startReturned()
        #expect(Self.startedValue(next) == nil)
    }

    @Test(arguments: [FlatMapStrategy.merge(maxConcurrent: 1), .merge(maxConcurrent: .max), .first])
    func theLastInnerFinishingAfterTheOuterFinishesTheResult(_ strategy: FlatMapStrategy) throws {
        var machine = Self.machine(strategy)
        let first = try #require(Self.startedID(machine.outerValue(1).0))
        guard case .none = machine.outerCompleted(.finished) else {
            Issue.record("completed with an inner still starting")
            return
        }
        guard case .complete(let teardown, .finished) = machine.startReturned(finishing: first) else {
            Issue.record("did not finish")
            return
        }
        #expect(teardown.released?.inners.isEmpty == true)
        #expect(machine.isTerminated)
    }

    @Test
    func afterACancellationTheStarterOnlyLeaves() throws {
        var machine = Self.machine(.merge(maxConcurrent: .max))
        let first = try #require(Self.startedID(machine.outerValue(1).0))
        _ = machine.cancel()
        guard case .end(let teardown) = machine.startReturned(finishing: first) else {
            Issue.record("the starter was not told to leave")
            return
        }
        #expect(teardown.released == nil)
    }
}
