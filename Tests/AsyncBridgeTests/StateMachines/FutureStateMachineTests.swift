@testable import AsyncBridge
import Testing

extension ExhaustiveStateMachineSuites {
    /// ``FutureStateMachine`` as a plain value, driven the way `SharedFuture` drives it (a starter
    /// starts the run and hands back its cancel action before it listens; a consumer leaves only
    /// once it is known), against a reference of one run at a time. Handler consumers and cancel
    /// actions are tracked objects: each consumer is told once (the outcome, or `nil` when it
    /// left), the cancel action runs once when the last consumer abandons a run and never after
    /// the run completed, and what the machine has handed back it holds no more.
    @Suite("State machines: future")
    struct FutureStateMachineTests {
        typealias Machine = FutureStateMachine<Int, Never>
        typealias Outcome = FutureOutcome<Int, Never>

        enum Input: String, CustomStringConvertible, CaseIterable {
            case arriveA, arriveB, joinB, start, installA, installB, leaveA, leaveB, starterLeaves, complete
            var description: String { rawValue }
        }

        /// What the handlers were told, by arrival.
        // Unchecked: an exhaustive run drives the machine on one thread, and whatever the
        // machine hands out that writes here runs on that thread, inside the step that triggers it.
        final class Log: @unchecked Sendable {
            var told: [Int: [Outcome?]] = [:]
            var cancels: [UInt64: Int] = [:]
        }

        /// One arrival of a consumer, while the driver still expects something for it.
        struct Arrival {
            var serial: Int
            var id: UInt64
            var run: UInt64
            var isStarter: Bool
            /// The starter has had the answer of `started`.
            var started = false
            var installed = false
            /// It left before listening: installing tells it `nil`.
            var left = false
        }

        struct Driver: SequenceDriver {
            var machine: Machine
            let log = Log()
            /// The operation's captured object: released once a run completed.
            let operation: Watched
            /// The reference: the current run, its members, and its outcome once completed.
            var run: UInt64 = 0
            var members: Set<String> = []
            var finished: Outcome?
            var arrivals: [String: Arrival] = [:]
            var serials = 0
            /// Each run's cancel action, once handed in (watched), and whether the run was abandoned.
            var cancelMarkers: [UInt64: Watched] = [:]
            var abandoned: Set<UInt64> = []
            /// Handlers of consumers that have been told, to be released.
            var toldHandlers: [Watched] = []
            var handlers: [Int: Watched] = [:]

            init() {
                let marker = Marker("the operation")
                operation = Watched(marker, marker.name)
                machine = Machine(
                    operation: .adapted { _ in _ = marker; return nil },
                    reporter: .current(.sharedFuture, fileID: #fileID, line: #line))
            }

            mutating func apply(_ input: Input) throws(Violation) -> Bool {
                switch input {
                case .arriveA: return try arrive("a")
                case .arriveB: return try arrive("b")
                case .joinB: return try join("b")
                case .installA: return try install("a")
                case .installB: return try install("b")
                case .leaveA: return try leave("a")
                case .leaveB: return try leave("b")
                case .start: return try start()
                case .starterLeaves: return try starterLeaves()
                case .complete: return try complete()
                }
            }

            mutating func arrive(_ name: String) throws(Violation) -> Bool {
                guard arrivals[name] == nil else { return false }
                var operation: Machine.Operation?
                let arrival = machine.arrive(operation: &operation)
                return try arrived(name, arrival, operation: operation)
            }

            /// `name` arrives only to join the run in progress or be served: on an idle future it
            /// is refused, and nothing starts.
            mutating func join(_ name: String) throws(Violation) -> Bool {
                guard arrivals[name] == nil else { return false }
                guard let arrival = machine.join() else {
                    try require(finished == nil && members.isEmpty, "refused to join a run in progress or finished")
                    return true
                }
                if case .starting = arrival { throw Violation(description: "joining started a run") }
                return try arrived(name, arrival, operation: nil)
            }

            mutating func arrived(_ name: String, _ arrival: Machine.Arrival, operation: Machine.Operation?) throws(Violation) -> Bool {
                serials += 1
                switch arrival {
                case .finished(let outcome):
                    try require(finished.map { "\($0)" } == "\(outcome)", "served \(outcome) but the run has not finished")
                    try require(operation == nil, "a served consumer got the operation")
                case .starting(let id, let generation):
                    try require(finished == nil && members.isEmpty, "started a run while one is in progress or finished")
                    try require(generation == run + 1, "run \(generation) after run \(run)")
                    try require(operation != nil, "the starter did not get the operation")
                    run = generation
                    members = [name]
                    arrivals[name] = Arrival(serial: serials, id: id, run: generation, isStarter: true)
                case .joining(let id, let generation):
                    try require(finished == nil && !members.isEmpty && generation == run, "joined run \(generation), expected to start or be served")
                    try require(operation == nil, "a joining consumer got the operation")
                    members.insert(name)
                    arrivals[name] = Arrival(serial: serials, id: id, run: generation, isStarter: false, started: true)
                }
                return true
            }

            mutating func start() throws(Violation) -> Bool {
                guard let (name, arrival) = starter(where: { !$0.started }) else { return false }
                let marker = Marker("cancel action of run \(arrival.run)")
                cancelMarkers[arrival.run] = Watched(marker, marker.name)
                let log = log
                let run = arrival.run
                let result = machine.started(arrival.run) { _ = marker; log.cancels[run, default: 0] += 1 }
                arrivals[name]?.started = true
                switch result {
                case .running:
                    try require(finished == nil, "running, but the run completed")
                case .finished(let outcome):
                    try require(finished.map { "\($0)" } == "\(outcome)", "finished with \(outcome), expected running")
                    try tell(name, outcome, directly: true)
                case .left:
                    throw Violation(description: "the starter is still there, yet the run was left")
                }
                return true
            }

            /// The consumer that started the current run, if it is still expected and `matches`.
            func starter(where matches: (Arrival) -> Bool) -> (String, Arrival)? {
                arrivals.first { $0.value.isStarter && $0.value.run == run && matches($0.value) }.map { ($0.key, $0.value) }
            }

            mutating func install(_ name: String) throws(Violation) -> Bool {
                guard let arrival = arrivals[name], arrival.started, !arrival.installed else { return false }
                let log = log
                let marker = Marker("handler of \(name) (arrival \(arrival.serial))")
                handlers[arrival.serial] = Watched(marker, marker.name)
                let serial = arrival.serial
                let installation = machine.install(arrival.id, arrival.run, .handler { outcome in
                    _ = marker
                    log.told[serial, default: []].append(outcome)
                })
                arrivals[name]?.installed = true
                switch installation {
                case .listening:
                    try require(finished == nil && !arrival.left, "listening, but the run ended or the consumer left")
                case .deliver(let outcome):
                    // One that left before listening is told `nil`, unless the run completed before it
                    // listens: then the completion won, and it may be told the outcome instead.
                    let expected: Outcome? = arrival.left ? nil : finished
                    let allowed = [expected] + (arrival.left && finished != nil ? [finished] : [])
                    try require(allowed.contains { "\(String(describing: $0))" == "\(String(describing: outcome))" },
                                "told \(String(describing: outcome)) at once, expected \(String(describing: expected))")
                    try require(arrival.left || finished != nil, "told at once, but the run is in progress")
                    try tell(name, outcome, directly: true)
                }
                return true
            }

            mutating func leave(_ name: String) throws(Violation) -> Bool {
                guard let arrival = arrivals[name], arrival.started, !arrival.left else { return false }
                let departure = machine.remove(arrival.id)
                if finished != nil || !members.contains(name) {
                    try require(departure.consumer == nil && departure.cancel == nil, "a consumer that cannot leave left")
                    return true
                }
                members.remove(name)
                try require(departure.consumer != nil, "the consumer that left was not handed back")
                if members.isEmpty {
                    abandoned.insert(run)
                    try require(departure.cancel != nil, "the last consumer left, and the cancel action was not handed back")
                } else {
                    try require(departure.cancel == nil, "the cancel action was handed back while a consumer waits")
                }
                departure.cancel?()
                if arrival.installed {
                    departure.consumer?.deliver(nil)
                    try tell(name, nil, directly: false)
                } else {
                    arrivals[name]?.left = true
                }
                return true
            }

            mutating func starterLeaves() throws(Violation) -> Bool {
                guard let (name, arrival) = starter(where: { $0.started && !$0.installed && !$0.left }) else { return false }
                switch machine.starterLeaves(arrival.id, arrival.run) {
                case .finished(let outcome):
                    try require(finished.map { "\($0)" } == "\(outcome)", "the starter was served \(outcome), but the run is in progress")
                    try tell(name, outcome, directly: true)
                case .left(let cancelling):
                    try require(finished == nil, "the starter left a finished run")
                    members.remove(name)
                    try require(cancelling == members.isEmpty, "cancelling \(cancelling) with \(members.count) consumers left")
                    if cancelling {
                        abandoned.insert(run)
                        log.cancels[run, default: 0] += 1  // the starter runs the action it holds
                    }
                    try tell(name, nil, directly: true)
                case .running:
                    throw Violation(description: "the starter was told to keep running as it left")
                }
                return true
            }

            mutating func complete() throws(Violation) -> Bool {
                guard run > 0 else { return false }
                let outcome = Outcome.success(Int(run))
                let completion = machine.complete(run, outcome)
                guard let completion else {
                    try require(finished != nil || members.isEmpty, "the completion of a run in progress was refused")
                    return true
                }
                try require(finished == nil && !members.isEmpty, "a run that had ended completed")
                finished = outcome
                try require(completion.released != nil, "the operation was not handed back to be released")
                let listening = members.filter { arrivals[$0]?.installed == true }
                completion.consumers?.deliver(outcome)
                for name in listening { try tell(name, outcome, directly: false) }
                members = []
                return true
            }

            /// `name` was told `outcome`: by the driver (`directly`, what the machine returned) or
            /// through its handler, which must have been called exactly once with it.
            mutating func tell(_ name: String, _ outcome: Outcome?, directly: Bool) throws(Violation) {
                guard let arrival = arrivals.removeValue(forKey: name) else { return }
                if directly {
                    log.told[arrival.serial, default: []].append(outcome)
                }
                let told = log.told[arrival.serial] ?? []
                try require(told.count == 1, "\(name) was told \(told.count) times: \(told)")
                try require("\(String(describing: told[0]))" == "\(String(describing: outcome))", "\(name) was told \(told), expected \(String(describing: outcome))")
                if let handler = handlers[arrival.serial] { toldHandlers.append(handler) }
            }

            mutating func end() throws(Violation) -> [Watched] {
                // Told at most once: a handler called after its consumer was told shows here.
                for (serial, told) in log.told { try require(told.count <= 1, "arrival \(serial) was told \(told.count) times") }
                for (run, count) in log.cancels {
                    try require(count == 1, "the cancel action of run \(run) ran \(count) times")
                    try require(abandoned.contains(run), "the cancel action of run \(run) ran, but the run was not abandoned")
                }
                for run in abandoned where cancelMarkers[run] != nil {
                    try require(log.cancels[run] == 1, "run \(run) was abandoned and its cancel action never ran")
                }
                // What the machine is done with, it holds no more.
                for handler in toldHandlers { try require(handler.object == nil, "\(handler.name) is still held after it was told") }
                for (run, marker) in cancelMarkers where abandoned.contains(run) || finished != nil {
                    try require(marker.object == nil, "\(marker.name) is still held after the run ended")
                }
                if finished != nil { try require(operation.object == nil, "the operation is still held after its run completed") }
                return Array(handlers.values) + Array(cancelMarkers.values)
            }
        }

        /// Every sequence of up to 8 inputs over {arriveA, arriveB, joinB, start, installA,
        /// installB, leaveA, leaveB, starterLeaves, complete}, those the owner cannot make skipped.
        @Test func everySequenceOfUpToEightInputs() {
            let count = checkEverySequence(over: Input.allCases, upTo: 8) { Driver() }
            #expect(count == 66_211)
        }
    }
}
