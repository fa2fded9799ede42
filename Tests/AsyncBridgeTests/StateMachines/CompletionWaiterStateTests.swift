@testable import AsyncBridge
import Testing

extension ExhaustiveStateMachineSuites {
    /// ``CompletionWaiterState`` as a plain value: the task is resumed exactly once, with the
    /// outcome if it came before the task left, else with `nil`; the machine holds neither once
    /// the task is resumed, and drops an outcome that comes after the task left.
    @Suite("State machines: completion waiter")
    struct CompletionWaiterStateTests {
        enum Input: String, CustomStringConvertible, CaseIterable {
            /// The completer forwards the outcome (once).
            case complete
            /// The task waits (once), leaving its continuation.
            case wait
            /// The task is cancelled: the starter saw it before waiting, or the cancellation
            /// handler ran (each at most once).
            case leave

            var description: String { rawValue }
        }

        struct Driver: SequenceDriver {
            var machine = CompletionWaiterState<Marker, Marker>.pending
            let outcome = Marker("outcome")
            let waiter = Marker("waiter")
            var completed = false
            var waited = false
            var leaves = 0
            /// The task left before the outcome came: it gets `nil`.
            var left = false
            /// What the task was resumed with (`.some(nil)`: with `nil`), once.
            var resumed: Marker??

            mutating func resume(_ with: Marker?) throws(Violation) {
                try require(resumed == nil, "the task was resumed twice")
                resumed = .some(with)
            }

            mutating func apply(_ input: Input) throws(Violation) -> Bool {
                switch input {
                case .complete:
                    guard !completed else { return false }
                    completed = true
                    switch machine.complete(outcome) {
                    case .resume(let resumedWaiter):
                        try require(waited && !left, "resumed a task that \(waited ? "left" : "was not waiting")")
                        try require(resumedWaiter === waiter, "resumed another waiter")
                        try resume(outcome)
                    case .kept:
                        try require(!waited && !left, "kept the outcome for a task that \(left ? "left" : "waits")")
                    case .left:
                        try require(left, "dropped the outcome of a task that did not leave")
                    }
                case .wait:
                    guard !waited else { return false }
                    waited = true
                    switch machine.wait(waiter) {
                    case .suspended:
                        try require(!completed && !left, "suspended a task whose \(left ? "cancellation" : "outcome") came")
                    case .outcome(let given):
                        try require(completed && given === outcome, "handed an outcome that did not come")
                        try resume(given)
                    case .left:
                        try require(left, "a task that did not leave was resumed with nil")
                        try resume(nil)
                    }
                case .leave:
                    guard leaves < 2 else { return false }
                    leaves += 1
                    if !completed { left = true }
                    let resumedWaiter = machine.leave()
                    if let resumedWaiter {
                        try require(resumedWaiter === waiter && waited && !completed, "resumed a task that does not wait")
                        try resume(nil)
                    } else {
                        try require(!(waited && left && resumed == nil), "left a waiting task suspended")
                    }
                }
                switch machine {
                case .handedOver, .left:
                    break
                case .pending, .waiting, .completed:
                    try require(resumed == nil, "the machine still holds something once the task was resumed")
                }
                return true
            }

            mutating func end() throws(Violation) -> [Watched] {
                if waited && (completed || left) {
                    try require(resumed != nil, "a task that waited was never resumed")
                }
                if let resumed {
                    try require((resumed === outcome) == (completed && !left), "the task got \(resumed.map(\.name) ?? "nil")")
                }
                return [Watched(outcome, "the outcome"), Watched(waiter, "the waiter")]
            }
        }

        /// Every sequence of up to 4 inputs over {complete, wait, leave}: every one the owners can make.
        @Test func everySequenceOfUpToFourInputs() {
            let count = checkEverySequence(over: Input.allCases, upTo: 4) { Driver() }
            #expect(count == 35)
        }
    }
}
