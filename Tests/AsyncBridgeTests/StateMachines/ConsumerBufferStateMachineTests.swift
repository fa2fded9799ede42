@testable import AsyncBridge
import Dispatch
import Testing

extension ExhaustiveStateMachineSuites {
    /// ``ConsumerBufferStateMachine`` as a plain value, for each buffering policy, against a
    /// reference buffer: every action matches the obvious semantics of the policy; each value is
    /// accounted for exactly once (delivered, dropped, discarded, or still buffered); the consumer
    /// gets values, then one last event, then nothing; each waiter and held producer handed in is
    /// handed back once, and none is dropped; once the consumer has ended, the machine holds no
    /// value. Waiters are stand-ins (distinct addresses, never resumed): the machine only stores
    /// and hands back continuations.
    @Suite("State machines: consumer buffer")
    struct ConsumerBufferStateMachineTests {
        typealias Machine = ConsumerBufferStateMachine<Marker, Never>

        enum Input: String, CustomStringConvertible, CaseIterable {
            /// The producer sends a new value.
            case receive
            /// A held producer, woken, offers its value again.
            case retry
            case complete
            case poll
            /// The consumer suspends.
            case install
            case cancel
            var description: String { rawValue }
        }

        struct Driver: SequenceDriver {
            var machine: Machine
            /// The reference.
            var buffer: [Marker] = []
            var phase = Phase.receiving
            var waiter: Int?
            var held: (value: Marker, semaphore: ObjectIdentifier, woken: Bool)?
            /// What the consumer got, in order.
            var consumed: [String] = []
            var sent: [Watched] = []
            var accounted: [String: String] = [:]
            var waiters = 0
            var handedBackWaiters: [Int: Int] = [:]
            var releasedSemaphores: [ObjectIdentifier: Int] = [:]
            var heldSemaphores: [ObjectIdentifier] = []
            /// Kept, so that a semaphore's identity is not reused while the sequence runs.
            var semaphores: [DispatchSemaphore] = []

            enum Phase { case receiving, draining, ended }

            init(limit: BufferLimit) {
                machine = Machine(limit: limit)
            }

            mutating func apply(_ input: Input) throws(Violation) -> Bool {
                switch input {
                case .receive:
                    guard held == nil else { return false }  // a held producer sends nothing else
                    let value = Marker("v\(sent.count + 1)")
                    sent.append(Watched(value, value.name))
                    try receive(value)
                case .retry:
                    guard let held, held.woken else { return false }
                    self.held = nil
                    try receive(held.value)
                case .complete:
                    guard held == nil else { return false }
                    let resumed = machine.complete(.finished)
                    if phase == .receiving, let waiter {
                        try handBack(resumed, expected: waiter)
                        try consume("finished")
                        self.waiter = nil
                        phase = .ended
                    } else {
                        try require(resumed == nil, "a waiter was handed back with nobody waiting")
                        if phase == .receiving { phase = .draining }
                    }
                case .poll:
                    guard waiter == nil else { return false }
                    var batch = RingBuffer<Marker>()
                    let poll = machine.poll(into: &batch)
                    var taken: [String] = []
                    while let value = batch.popFirst() { taken.append(value.name) }
                    switch poll {
                    case .value(let value, let released):
                        try release(released)
                        try take(value)
                    case .refilled:
                        try require(machine.limit == .unbounded && !taken.isEmpty, "refilled \(taken) under \(machine.limit)")
                        try require(taken == buffer.map(\.name), "refilled \(taken), expected \(buffer.map(\.name))")
                        for name in taken { try consume(name); accounted[name] = "consumed" }
                        buffer = []
                    case .end(let event):
                        try end(event, when: "polled")
                    case .empty:
                        try require(phase == .receiving && buffer.isEmpty, "empty, but \(phase) with \(buffer.count) buffered")
                    }
                case .install:
                    guard waiter == nil else { return false }
                    waiters += 1
                    let id = waiters
                    switch machine.install(standInContinuation(id)) {
                    case .installed:
                        try require(phase == .receiving && buffer.isEmpty, "installed, but \(phase) with \(buffer.count) buffered")
                        waiter = id
                    case .resume(let event, let released):
                        try release(released)
                        if case .value(let value) = event { try take(value) } else { try end(event, when: "installed") }
                    }
                case .cancel:
                    let departure = machine.cancel()
                    try require(departure.wasActive == (phase == .receiving), "wasActive \(departure.wasActive) in \(phase)")
                    if let waiter { try handBack(departure.waiter, expected: waiter) } else {
                        try require(departure.waiter == nil, "a waiter was handed back with nobody waiting")
                    }
                    try release(departure.held)
                    var discarded = departure.discarded
                    var names: [String] = []
                    while let value = discarded.popFirst() { names.append(value.name) }
                    try require(names == (phase == .ended ? [] : buffer.map(\.name)), "discarded \(names), expected \(buffer.map(\.name))")
                    for name in names { accounted[name] = "discarded" }
                    if waiter != nil { try consume("nil") }
                    buffer = []
                    waiter = nil
                    phase = .ended
                }
                return true
            }

            mutating func receive(_ value: Marker) throws(Violation) {
                let action = machine.receive(value)
                let expected: String
                if phase != .receiving {
                    expected = "stop"
                    accounted[value.name] = "refused"
                } else if let waiter {
                    expected = "resume(w\(waiter), \(value))"
                    self.waiter = nil
                    try consume(value.name)
                    accounted[value.name] = "consumed"
                } else {
                    switch machine.limit {
                    case .unbounded:
                        buffer.append(value)
                        expected = "none"
                    case .oldest(let size) where buffer.count >= size, .newest(let size) where size == 0:
                        expected = "drop(\(value))"
                        accounted[value.name] = "dropped"
                    case .newest(let size) where buffer.count >= size:
                        let evicted = buffer.removeFirst()
                        accounted[evicted.name] = "dropped"
                        buffer.append(value)
                        expected = "drop(\(evicted))"
                    case .blocking(let size) where buffer.count >= size:
                        expected = "hold"
                    case .oldest, .newest, .blocking:
                        buffer.append(value)
                        expected = "none"
                    }
                }
                let found: String
                switch action {
                case .none: found = "none"
                case .resume(let waiter, let value): found = "resume(w\(standInID(waiter)), \(value))"
                case .drop(let value): found = "drop(\(value))"
                case .stop: found = "stop"
                case .hold(let semaphore):
                    found = "hold"
                    semaphores.append(semaphore)
                    heldSemaphores.append(ObjectIdentifier(semaphore))
                    held = (value, ObjectIdentifier(semaphore), false)
                }
                try require(found == expected, "receive(\(value)) did \(found), expected \(expected)")
            }

            /// The consumer took `value`, the first buffered one.
            mutating func take(_ value: Marker) throws(Violation) {
                try require(phase != .ended && buffer.first === value, "took \(value), expected \(buffer.first.map(\.name) ?? "nothing") in \(phase)")
                buffer.removeFirst()
                try consume(value.name)
                accounted[value.name] = "consumed"
            }

            mutating func end(_ event: FlowEvent<Marker, Never>?, when: String) throws(Violation) {
                let expected = phase == .draining && buffer.isEmpty ? "finished" : phase == .ended ? "nil" : "more"
                let found = event.map { "\($0)" } ?? "nil"
                try require(found == expected, "\(when): \(found), expected \(expected)")
                if phase == .draining { try consume("finished") }
                phase = .ended
            }

            mutating func consume(_ event: String) throws(Violation) {
                try require(!(consumed.last == "finished" || consumed.last == "nil"), "\(event) after the last event")
                consumed.append(event)
            }

            mutating func handBack(_ waiter: Machine.Waiter?, expected: Int) throws(Violation) {
                let id = waiter.map(standInID)
                try require(id == expected, "handed back waiter \(String(describing: id)), expected w\(expected)")
                handedBackWaiters[expected, default: 0] += 1
            }

            mutating func release(_ semaphore: DispatchSemaphore?) throws(Violation) {
                guard let semaphore else {
                    try require(held == nil || held!.woken || phase != .receiving, "a value was taken, and the held producer not released")
                    return
                }
                let id = ObjectIdentifier(semaphore)
                try require(held?.semaphore == id && held?.woken == false, "released a producer that is not held")
                releasedSemaphores[id, default: 0] += 1
                held!.woken = true
            }

            mutating func end() throws(Violation) -> [Watched] {
                try require(machine.buffer.count == buffer.count, "\(machine.buffer.count) buffered, expected \(buffer.count)")
                for (waiter, count) in handedBackWaiters { try require(count == 1, "waiter w\(waiter) handed back \(count) times") }
                for (semaphore, count) in releasedSemaphores { try require(count == 1, "a producer released \(count) times: \(semaphore)") }
                var inBuffer = Set(buffer.map(\.name))
                if let held { inBuffer.insert(held.value.name) }
                for value in sent {
                    let fates = (accounted[value.name].map { [$0] } ?? []) + (inBuffer.contains(value.name) ? ["buffered"] : [])
                    try require(fates.count == 1, "\(value.name) is \(fates)")
                }
                if phase == .ended {
                    try require(waiter == nil && (held == nil || held!.woken), "the consumer ended with a waiter or a held producer left")
                    for value in sent where held?.value.name != value.name {
                        try require(value.object == nil, "\(value.name) is still held after the consumer ended")
                    }
                }
                return sent
            }
        }

        static let limits: [BufferLimit] = [.unbounded, .newest(0), .newest(1), .oldest(1), .blocking(1)]

        /// For each policy in {unbounded, newest(0), newest(1), oldest(1), blocking(1)}:
        /// every sequence of up to 7 inputs over {receive, retry, complete, poll, install, cancel},
        /// those the owner cannot make skipped. On a thread of its own, outside any task, where a
        /// producer may be held.
        @Test(arguments: limits)
        func everySequenceOfUpToSevenInputs(limit: BufferLimit) async {
            let run = await returning { runEverySequence(over: Input.allCases, upTo: 7) { Driver(limit: limit) } }
            let counts = ["unbounded": 86_134, "newest(0)": 83_928, "newest(1)": 86_048, "oldest(1)": 86_048, "blocking(1)": 82_553]
            #expect(run.record() == counts["\(limit)"])
        }
    }
}

/// Runs `body` on a thread that runs no Swift task (where a producer may be held), and waits
/// for what it returns.
func returning<Result: Sendable>(onPlainThread body: @escaping @Sendable () -> Result) async -> Result {
    await withCheckedContinuation { done in
        onPlainThread { done.resume(returning: body()) }
    }
}
