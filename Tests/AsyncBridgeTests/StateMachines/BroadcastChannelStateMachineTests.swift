@testable import AsyncBridge
import Testing

extension ExhaustiveStateMachineSuites {
    /// ``BroadcastChannelStateMachine`` as a plain value, unbounded, with two consumers, against
    /// the obvious semantics: a consumer gets every value sent while it iterated (the first one to
    /// start also gets what was sent while nobody did), in order, then the completion, and nothing
    /// after it left; each waiter handed in is handed back once. At the end every consumer still
    /// there takes what is left, which must be all it was owed, and the machine then holds no value
    /// but those waiting for a consumer to start. Waiters are stand-ins, as in the consumer
    /// buffer's test. (Waiting for consumers, whose continuations are checked ones, is left out.)
    @Suite("State machines: broadcast channel")
    struct BroadcastChannelStateMachineTests {
        typealias Machine = BroadcastChannelStateMachine<Marker, Never>

        enum Input: String, CustomStringConvertible, CaseIterable {
            case send, complete, registerA, registerB, pollA, pollB, installA, installB, cancelA, cancelB
            var description: String { rawValue }
        }

        struct Driver: SequenceDriver {
            var machine = Machine(limit: .unbounded)
            /// The reference.
            var backlog: [String]?
            var backlogCompleted = false
            var completed = false
            var live: [String] = []
            var ids: [String: UInt64] = [:]
            var owed: [String: [String]] = [:]
            var received: [String: [String]] = [:]
            var waiting: [String: Int] = [:]
            var waiters = 0
            var handedBack: [Int: Int] = [:]
            var sent: [Watched] = []

            mutating func apply(_ input: Input) throws(Violation) -> Bool {
                switch input {
                case .send:
                    let value = Marker("v\(sent.count + 1)")
                    sent.append(Watched(value, value.name))
                    let deliveries = machine.send(value)
                    if !completed {
                        if live.isEmpty { backlog = (backlog ?? []) + [value.name] } else { for name in live { owed[name]!.append(value.name) } }
                    }
                    for delivery in [deliveries.first].compactMap({ $0 }) + deliveries.more {
                        guard case .resume(let waiter, let value) = delivery else { throw Violation(description: "an unbounded channel dropped \(delivery)") }
                        try resumed(waiter, with: value.name)
                    }
                case .complete:
                    let waiters = machine.complete(.finished)
                    if !completed {
                        completed = true
                        if live.isEmpty {
                            backlog = backlog ?? []
                            backlogCompleted = true
                        } else {
                            for name in live { owed[name]!.append("finished") }
                        }
                    }
                    for waiter in waiters { try resumed(waiter, with: "finished") }
                case .registerA, .registerB:
                    let name = input == .registerA ? "a" : "b"
                    guard ids[name] == nil else { return false }
                    ids[name] = machine.register()
                    if let taken = backlog {
                        owed[name] = taken + (backlogCompleted ? ["finished"] : [])
                        backlog = nil
                    } else {
                        owed[name] = completed ? ["finished"] : []
                    }
                    received[name] = []
                    live.append(name)
                case .pollA, .pollB:
                    let name = input == .pollA ? "a" : "b"
                    guard let id = ids[name], waiting[name] == nil else { return false }
                    try poll(name, id)
                case .installA, .installB:
                    let name = input == .installA ? "a" : "b"
                    guard let id = ids[name], waiting[name] == nil else { return false }
                    waiters += 1
                    let waiter = waiters
                    let installation = machine.withConsumer(id) {
                        $0.install(standInContinuation(waiter))
                    }
                    switch installation {
                    case .installed: waiting[name] = waiter
                    case .resume(let event, _): try receive(name, Self.describe(event))
                    }
                case .cancelA, .cancelB:
                    let name = input == .cancelA ? "a" : "b"
                    guard let id = ids[name], live.contains(name) else { return false }
                    live.removeAll { $0 == name }
                    let departure = machine.remove(id)
                    if let waiter = departure.waiter { try resumed(waiter, with: "nil") }
                    try require(waiting[name] == nil, "\(name) left, and its waiter was not handed back")
                    owed[name] = received[name]
                }
                return true
            }

            mutating func poll(_ name: String, _ id: UInt64) throws(Violation) {
                var batch = RingBuffer<Marker>()
                let poll = machine.withConsumer(id) { $0.poll(into: &batch) }
                while let value = batch.popFirst() { try receive(name, value.name) }
                switch poll {
                case .value(let value, _): try receive(name, value.name)
                case .end(let event): try receive(name, Self.describe(event))
                case .refilled, .empty: break
                }
            }

            mutating func resumed(_ waiter: Machine.Consumer.Waiter, with event: String) throws(Violation) {
                let id = standInID(waiter)
                handedBack[id, default: 0] += 1
                try require(handedBack[id] == 1, "waiter w\(id) handed back \(handedBack[id]!) times")
                guard let name = waiting.first(where: { $0.value == id })?.key else {
                    throw Violation(description: "waiter w\(id) handed back, and nobody waits on it")
                }
                waiting[name] = nil
                try receive(name, event)
            }

            mutating func receive(_ name: String, _ event: String) throws(Violation) {
                if event == "nil" {
                    try require(!live.contains(name) || received[name]!.last == "finished", "\(name) was told it left while it iterates")
                    return
                }
                received[name]!.append(event)
                let got = received[name]!, owes = owed[name]!
                try require(got.count <= owes.count && Array(owes.prefix(got.count)) == got, "\(name) got \(got), owed \(owes)")
            }

            /// A value by its name; the completion as `finished`; `nil` (the consumer left) as `nil`.
            static func describe(_ event: FlowEvent<Marker, Never>?) -> String {
                switch event {
                case .value(let value): value.name
                case .finished: "finished"
                case nil: "nil"
                }
            }

            mutating func end() throws(Violation) -> [Watched] {
                for name in live where waiting[name] == nil {
                    for _ in 0..<(owed[name]!.count + 1) { try poll(name, ids[name]!) }
                    try require(received[name] == owed[name], "\(name) got \(received[name]!), owed \(owed[name]!)")
                }
                let waitingForConsumer = Set(backlog ?? [])
                for value in sent where !waitingForConsumer.contains(value.name) && waiting.isEmpty {
                    try require(value.object == nil, "\(value.name) is still held after every consumer took it or left")
                }
                return sent
            }
        }

        /// Every sequence of up to 7 inputs over {send, complete, registerA, registerB, pollA,
        /// pollB, installA, installB, cancelA, cancelB}, those the owner cannot make skipped.
        @Test func everySequenceOfUpToSevenInputs() {
            let count = checkEverySequence(over: Input.allCases, upTo: 7) { Driver() }
            #expect(count == 213_429)
        }
    }
}
