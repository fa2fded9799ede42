import Testing
import AsyncBridge

/// A class that is not `Sendable`: a count in a plain `var`, and a log of what happened.
final class ConfinedLegacy {
    var starts = 0
    var cancels = 0
}

actor ConfinedOwner {
    let legacy = ConfinedLegacy()
}

@Suite("ActorConfined: a non-Sendable object used only on its actor", .timeLimit(.minutes(1)))
struct ActorConfinedTests {
    let owner = ConfinedOwner()

    @Test func runHandsOverAResultFromTheActor() async {
        let box = ActorConfined(ConfinedLegacy(), to: owner)
        let starts = await box.run { [owner] legacy in
            owner.preconditionIsolated()
            legacy.starts += 1
            return legacy.starts
        }
        #expect(starts == 1)
    }

    @Test func startRunsTheOperationAndItsCancelActionOnTheActorOnce() async {
        let box = ActorConfined(ConfinedLegacy(), to: owner)
        let cancel = box.start { [owner] legacy in
            owner.preconditionIsolated()
            legacy.starts += 1
            return {
                owner.preconditionIsolated()
                legacy.cancels += 1
            }
        }
        while await box.run({ $0.starts }) == 0 { await Task.yield() }
        cancel()
        cancel()
        while await box.run({ $0.cancels }) == 0 { await Task.yield() }
        for _ in 0..<10 { await Task.yield() }
        #expect(await box.run { [$0.starts, $0.cancels] } == [1, 1])
    }

    @Test func withCompletionRunsANonSendableCancelActionOnTheCallersActor() async throws {
        let recorded = await owner.awaitCancelled()
        #expect(recorded == [1, 1])
    }
}

extension ConfinedOwner {
    /// Awaits an operation of an object this actor owns, cancels the task while it is pending,
    /// and reports the object's starts and cancels, both made on this actor.
    func awaitCancelled() async -> [Int] {
        withUnsafeCurrentTask { $0?.cancel() }
        _ = try? await withCompletion { (_: @escaping @Sendable (Result<Int, Never>) -> Void, onCancel) in
            legacy.starts += 1
            onCancel {
                self.preconditionIsolated()
                self.legacy.cancels += 1
            }
        }
        return [legacy.starts, legacy.cancels]
    }
}
