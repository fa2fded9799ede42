@testable import AsyncBridge
import Testing

extension ExhaustiveStateMachineSuites {
    /// ``RetryStateMachine`` as a plain value, driven as ``RetryStorage`` drives it: the current
    /// attempt registers its cancel action while it starts, its starter returns, it fails (to be
    /// retried at once, after a backoff, or not at all) or succeeds; the backoff's timer is
    /// recorded and fires; the run is cancelled at any time. Checked: attempts follow one another
    /// in order, each started once; the run ends once (given up, succeeded or cancelled) and
    /// nothing starts after that; cancelling reaches the live attempt exactly once (its cancel
    /// action handed back, or its registration refused) and the backoff's timer exactly once; once
    /// the run ended, the machine holds neither the context nor any attempt's cancel action.
    @Suite("State machines: retry")
    struct RetryStateMachineTests {
        struct Context: Sendable {
            let marker: Marker
        }

        typealias Machine = RetryStateMachine<Context>

        enum Input: String, CustomStringConvertible, CaseIterable {
            case register, started, failNow, failLater, failForGood, succeed, timerStarted, timerFired, cancel
            var description: String { rawValue }
        }

        /// What the attempts' cancel actions did: calls by attempt.
        // Unchecked: an exhaustive run drives the machine on one thread, and whatever the
        // machine hands out that writes here runs on that thread, inside the step that triggers it.
        final class Calls: @unchecked Sendable {
            var cancels: [Int: Int] = [:]
        }

        struct Driver: SequenceDriver {
            var machine: Machine
            let context: Watched
            let calls = Calls()
            /// The reference.
            var attempt = 1
            var starting = true
            var registered = false
            /// The current attempt has failed or succeeded.
            var attemptOver = false
            /// It failed at once while starting: its starter starts the next.
            var retryNow = false
            /// A backoff before attempt `waitingFor`: recorded, fired.
            var waitingFor: Int?
            var timerRecorded = false
            var timerFired = false
            var ended = false
            var cancelled = false
            /// Cancelling reached: attempts (their action, or their refused registration), the timer.
            var reachedAttempts: [Int: Int] = [:]
            var reachedTimer = 0
            var liveAtCancel: Int?
            var timerLiveAtCancel = false
            var actions: [Watched] = []

            init() {
                let marker = Marker("the context")
                context = Watched(marker, marker.name)
                machine = Machine(context: Context(marker: marker))
            }

            mutating func apply(_ input: Input) throws(Violation) -> Bool {
                switch input {
                case .register:
                    guard starting, !registered, waitingFor == nil || timerFired else { return false }
                    registered = true
                    let number = attempt
                    let calls = calls
                    let marker = Marker("cancel action of attempt \(number)")
                    actions.append(Watched(marker, marker.name))
                    let (accepted, _) = machine.register(number) { _ = marker; calls.cancels[number, default: 0] += 1 }
                    try require(accepted == !cancelled, "registration \(accepted ? "accepted" : "refused") with the run \(cancelled ? "cancelled" : "on")")
                    if !accepted { reachedAttempts[number, default: 0] += 1 }
                case .started:
                    guard starting, waitingFor == nil || timerFired else { return false }
                    starting = false
                    let (action, _) = machine.attemptStarted(attempt)
                    switch action {
                    case .none:
                        try require(!retryNow || cancelled, "attempt \(attempt) failed while starting and the next did not start")
                    case .startNext(let number, let context):
                        try require(retryNow && !cancelled, "started attempt \(number) unasked")
                        try require(context.marker === self.context.object, "a context that is not the run's")
                        try next(number)
                    }
                case .failNow, .failLater, .failForGood:
                    guard !attemptOver, !ended || cancelled, waitingFor == nil || timerFired else { return false }
                    attemptOver = true
                    let delay: Duration? = input == .failForGood ? nil : input == .failNow ? .zero : .seconds(1)
                    let (action, _) = machine.attemptFailed(attempt, retryAfter: delay)
                    switch action {
                    case .none:
                        try require(cancelled || (input == .failNow && starting), "attempt \(attempt)'s failure was ignored")
                        if !cancelled { retryNow = true }
                    case .giveUp:
                        try require(input == .failForGood && !cancelled, "gave up unasked")
                        ended = true
                    case .start(let number, _):
                        try require(input == .failNow && !starting && !cancelled, "started attempt \(number) unasked")
                        try next(number)
                    case .wait(let number, _):
                        try require(input == .failLater && !cancelled && number == attempt + 1, "waited for attempt \(number) unasked")
                        waitingFor = number
                        timerRecorded = false
                        timerFired = false
                    }
                case .succeed:
                    guard !attemptOver, !ended || cancelled, waitingFor == nil || timerFired else { return false }
                    attemptOver = true
                    let (deliver, _) = machine.attemptEnded(attempt)
                    try require(deliver == !cancelled, "delivered: \(deliver), cancelled: \(cancelled)")
                    ended = true
                case .timerStarted:
                    guard waitingFor != nil, !timerRecorded else { return false }
                    timerRecorded = true
                    let (recorded, _) = machine.timerStarted(backoffTimer, before: waitingFor!)
                    try require(recorded == !cancelled, "timer recorded: \(recorded), cancelled: \(cancelled)")
                    if !recorded { reachedTimer += 1 }
                case .timerFired:
                    guard let number = waitingFor, !timerFired else { return false }
                    timerFired = true
                    let (context, _) = machine.timerFired(before: number)
                    try require((context != nil) == !cancelled, "attempt \(number) after the backoff: \(context != nil), cancelled: \(cancelled)")
                    if context != nil { try next(number) }
                case .cancel:
                    let teardown = machine.cancel()
                    if !ended {
                        liveAtCancel = attemptOver ? nil : attempt
                        timerLiveAtCancel = waitingFor != nil && !timerFired
                        if waitingFor != nil, timerRecorded, !timerFired {
                            try require(teardown.timer == backoffTimer, "the backoff's timer was not handed back")
                            reachedTimer += 1
                        } else {
                            try require(teardown.timer == nil, "a timer handed back with none to cancel")
                        }
                        teardown.cancelAttempt?()
                        if teardown.cancelAttempt != nil { reachedAttempts[attempt, default: 0] += 1 }
                    } else {
                        try require(teardown.cancelAttempt == nil && teardown.timer == nil, "a cancellation after the end handed back work")
                    }
                    if !ended { cancelled = true }
                    ended = true
                }
                for (number, count) in calls.cancels { try require(count <= 1, "attempt \(number) cancelled \(count) times") }
                for (number, count) in reachedAttempts { try require(count == 1, "cancelling reached attempt \(number) \(count) times") }
                try require(reachedTimer <= 1, "cancelling reached the timer \(reachedTimer) times")
                return true
            }

            /// Attempt `number` starts: one after the other, never after the end.
            mutating func next(_ number: Int) throws(Violation) {
                try require(!ended && number == attempt + 1, "attempt \(number) started after attempt \(attempt), ended: \(ended)")
                attempt = number
                (starting, registered, attemptOver, retryNow, waitingFor) = (true, false, false, false, nil)
            }

            mutating func end() throws(Violation) -> [Watched] {
                if cancelled, let live = liveAtCancel, registered {
                    try require(reachedAttempts[live] == 1, "attempt \(live) was live when the run was cancelled and never learned it")
                }
                if timerLiveAtCancel, timerRecorded {
                    try require(reachedTimer == 1, "the backoff's timer was never cancelled")
                }
                if ended {
                    try require(machine.context == nil, "the run ended and the machine still gives its context")
                    try require(context.object == nil, "the context is still held after the run ended")
                    for action in actions { try require(action.object == nil, "\(action.name) is still held after the run ended") }
                }
                return [context] + actions
            }
        }

        /// Every sequence of up to 9 inputs over {register, started, failNow, failLater,
        /// failForGood, succeed, timerStarted, timerFired, cancel}, those the owner cannot make
        /// skipped.
        @Test func everySequenceOfUpToNineInputs() {
            let count = checkEverySequence(over: Input.allCases, upTo: 9) { Driver() }
            #expect(count == 60_335)
        }
    }
}

/// The one task standing for every backoff's timer: the machine only keeps and hands it back.
private let backoffTimer = Task<Void, Never> {}
