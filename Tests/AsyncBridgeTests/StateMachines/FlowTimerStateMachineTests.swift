@testable import AsyncBridge
import Testing

extension ExhaustiveStateMachineSuites {
    /// ``FlowTimerStateMachine`` as a plain value, with the timer's task played step by step as
    /// ``FlowTimer`` runs it (ask what to do, sleep until a deadline, wake, fire, suspend while
    /// nothing is armed), the operator arming ever later deadlines (or none) and ending the timer at
    /// any time. Checked: the task is started once, by the first deadline; the timer fires only when
    /// the task woke from the deadline armed now, once per deadline, never after the end; a
    /// suspended task is resumed once (by a deadline, or by the end), and never left suspended with
    /// a deadline armed; the task is cancelled once when the timer ends (handed back, or refused
    /// when recorded); once ended, the machine holds neither the task nor the operator's `fire`.
    /// Waiters are stand-ins, as in the consumer buffer's test.
    @Suite("State machines: flow timer")
    struct FlowTimerStateMachineTests {
        typealias Instant = ContinuousClock.Instant
        typealias Machine = FlowTimerStateMachine<Instant>

        enum Input: String, CustomStringConvertible, CaseIterable {
            /// The operator arms a deadline later than every one before, or none.
            case armLater, armNone
            /// The starter records the task it created.
            case record
            /// The task takes its next step.
            case step
            case end
            var description: String { rawValue }
        }

        /// Where the timer's task is.
        enum Task {
            case none
            /// Created; about to ask what to do, after waking from a sleep until `wokeFrom`, if any.
            case asking(wokeFrom: Int?)
            case sleeping(until: Int)
            case toWait
            case suspended(waiter: Int)
            case finished
        }

        // Unchecked: an exhaustive run drives the machine on one thread, and whatever the
        // machine hands out that writes here runs on that thread, inside the step that triggers it.
        final class Fires: @unchecked Sendable {
            var count = 0
        }

        struct Driver: SequenceDriver {
            var machine: Machine
            let fire: Watched
            let fires = Fires()
            let origin = ContinuousClock.now
            /// The reference.
            var armed: Int?
            var latest = 0
            var task = Task.none
            var starts = 0
            var recorded = false
            var ended = false
            var taskCancelled = 0
            var waiters = 0
            var resumed: [Int: Int] = [:]
            var expectedFires = 0

            init() {
                let marker = Marker("the operator's fire")
                fire = Watched(marker, marker.name)
                let fires = fires
                machine = Machine(fire: { _ = marker; fires.count += 1 })
            }

            func instant(_ deadline: Int) -> Instant { origin + .seconds(deadline) }
            func deadline(_ instant: Instant) -> Int { Int((instant - origin).components.seconds) }

            mutating func apply(_ input: Input) throws(Violation) -> Bool {
                switch input {
                case .armLater, .armNone:
                    var deadline: Int?
                    if input == .armLater {
                        latest += 1
                        deadline = latest
                    }
                    let action = machine.arm(deadline.map(instant))
                    if !ended { armed = deadline }
                    switch action {
                    case .none:
                        if case .suspended = task { try require(deadline == nil || ended, "a deadline armed, and the suspended task not resumed") }
                        try require(starts > 0 || deadline == nil || ended, "the first deadline did not start the task")
                    case .startTask:
                        try require(starts == 0 && !ended && deadline != nil, "the task started again, or unasked")
                        starts += 1
                        task = .asking(wokeFrom: nil)
                    case .resume(let waiter, let resumedAt):
                        guard case .suspended(let id) = task else { throw Violation(description: "resumed a task that was not suspended") }
                        try require(self.deadline(resumedAt) == deadline, "resumed with another deadline")
                        try handBack(waiter, expected: id)
                        task = .sleeping(until: deadline!)
                    }
                case .record:
                    guard starts > 0, !recorded else { return false }
                    recorded = true
                    let kept = machine.taskStarted(timerTask)
                    try require(kept == !ended, "the task recorded: \(kept), ended: \(ended)")
                    if !kept { taskCancelled += 1 }
                case .step:
                    switch task {
                    case .asking(let wokeFrom):
                        switch machine.next(wokeFrom: wokeFrom.map(instant)) {
                        case .sleep(let until):
                            try require(!ended && deadline(until) == armed, "sleeps until \(deadline(until)), armed \(String(describing: armed))")
                            task = .sleeping(until: deadline(until))
                        case .wait:
                            try require(!ended && armed == nil, "waits with \(String(describing: armed)) armed")
                            task = .toWait
                        case .fire(let fire):
                            try require(!ended && wokeFrom != nil && armed == wokeFrom, "fired at \(String(describing: wokeFrom)), armed \(String(describing: armed))")
                            fire()
                            armed = nil
                            expectedFires += 1
                            task = .asking(wokeFrom: nil)
                        case .end:
                            try require(ended, "the task ended before the timer")
                            task = .finished
                        }
                    case .sleeping(let until):
                        task = taskCancelled > 0 ? .finished : .asking(wokeFrom: until)
                    case .toWait:
                        waiters += 1
                        let id = waiters
                        switch machine.wait(standInContinuation(id)) {
                        case .suspend:
                            try require(!ended && armed == nil, "suspended with \(String(describing: armed)) armed, ended: \(ended)")
                            task = .suspended(waiter: id)
                        case .resume(let deadline):
                            try require(deadline.map(self.deadline) == armed && (ended == (deadline == nil)), "resumed at once with \(String(describing: deadline))")
                            task = deadline.map { .sleeping(until: self.deadline($0)) } ?? .finished
                        }
                    case .none, .suspended, .finished:
                        return false
                    }
                case .end:
                    let teardown = machine.end()
                    if !ended {
                        try require((teardown.fire != nil), "the operator's fire was not handed back to be released")
                        if teardown.task != nil { taskCancelled += 1 }
                        try require((teardown.task != nil) == recorded, "the task handed back: \(teardown.task != nil), recorded: \(recorded)")
                        if case .suspended(let id) = task {
                            guard let waiter = teardown.waiting else { throw Violation(description: "the suspended task was not handed back") }
                            try handBack(waiter, expected: id)
                            task = .finished
                        } else {
                            try require(teardown.waiting == nil, "handed back a waiter nobody suspended on")
                        }
                    } else {
                        try require(teardown.task == nil && teardown.waiting == nil && teardown.fire == nil, "ended twice")
                    }
                    ended = true
                    armed = nil
                }
                try require(fires.count == expectedFires, "fired \(fires.count) times, expected \(expectedFires)")
                try require(taskCancelled <= 1, "the task was cancelled \(taskCancelled) times")
                return true
            }

            mutating func handBack(_ waiter: UnsafeContinuation<Instant?, Never>, expected: Int) throws(Violation) {
                let id = standInID(waiter)
                try require(id == expected, "handed back waiter w\(id), expected w\(expected)")
                resumed[id, default: 0] += 1
                try require(resumed[id] == 1, "waiter w\(id) handed back \(resumed[id]!) times")
            }

            mutating func end() throws(Violation) -> [Watched] {
                if case .suspended = task { try require(armed == nil, "the task is suspended with a deadline armed") }
                if ended {
                    try require(machine.task == nil, "the task is still held after the end")
                    try require(fire.object == nil, "the operator's fire is still held after the end")
                    if starts > 0, recorded { try require(taskCancelled == 1, "the task was never cancelled") }
                }
                return [fire]
            }
        }

        /// Every sequence of up to 9 inputs over {armLater, armNone, record, step, end}, those the
        /// owner cannot make skipped.
        @Test func everySequenceOfUpToNineInputs() {
            let count = checkEverySequence(over: Input.allCases, upTo: 9) { Driver() }
            #expect(count == 270_404)
        }
    }
}

/// The one task standing for every timer's task: the machine only keeps and hands it back.
private let timerTask = _Concurrency.Task<Void, Never> {}
