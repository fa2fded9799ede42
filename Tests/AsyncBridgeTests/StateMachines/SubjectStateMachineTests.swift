@testable import AsyncBridge
import Testing

extension ExhaustiveStateMachineSuites {
    /// ``SubjectStateMachine`` (with its ``SubjectSubscriberTable``) as a plain value. The driver
    /// plays the storage's deliverer one delivery at a time (`step`), so that sends, completions,
    /// subscriptions and cancellations land between two deliveries of an event, as they do from a
    /// handler. Against the obvious semantics: a subscriber gets the buffer as it was when it
    /// subscribed, then every value accepted after that, then the completion; never anything after
    /// it was cancelled; never a value twice or out of order; and once the deliverer is done,
    /// everything it was owed. The machine holds no cancelled subscriber, and none at all once its
    /// completion has been delivered.
    @Suite("State machines: subject")
    struct SubjectStateMachineTests {
        typealias Machine = SubjectStateMachine<Marker, Never>
        typealias Subscriber = Machine.Subscriber

        enum Input: String, CustomStringConvertible, CaseIterable {
            case subscribeA, subscribeB, send, complete, cancelA, cancelB
            /// B registers, and subscribes later (`subscribeB`): a cancellation can come between.
            case registerB
            /// The deliverer makes its next delivery (or finishes its event and takes the next).
            case step
            var description: String { rawValue }
        }

        /// How the subject was made: a live, behavior or replaying subject.
        struct Kind: Sendable, CustomStringConvertible {
            var bufferSize: Int
            var initial: Int
            var replaysAfterCompletion: Bool
            var description: String { "buffer \(bufferSize), \(initial) initial, replays after completion: \(replaysAfterCompletion)" }
        }

        /// The event the driver is delivering, and how far it got.
        enum Work {
            case value(Marker, Unmanaged<Machine.Subscribers>, next: Int)
            case completion(Unmanaged<Machine.Subscribers>, next: Int)
            case subscription(Subscriber, replay: [Marker], completed: Bool, next: Int)
        }

        struct Driver: SequenceDriver {
            let kind: Kind
            var machine: Machine
            var work: Work?
            /// The reference.
            var buffer: [String]
            var completed = false
            var expected: [String: [String]] = [:]
            var live: Set<String> = []
            var cancelled: Set<String> = []
            var received: [String: [String]] = [:]
            var ids: [String: SubjectSubscriberID] = [:]
            var justRegisteredB = false
            /// Registered and not subscribed yet.
            var registered: [String: Subscriber] = [:]
            var names: [UInt64: String] = [:]
            var markers: [String: Watched] = [:]
            var values = 0

            /// Subscribes through ``SubjectStateMachine/subscribeJoiningAtOnce(_:)``, as the
            /// storage does, instead of ``SubjectStateMachine/subscribe(_:)``.
            var joinsAtOnce = false

            init(_ kind: Kind, joinsAtOnce: Bool = false) {
                self.kind = kind
                self.joinsAtOnce = joinsAtOnce
                let initial = (0..<kind.initial).map { Marker("i\($0)") }
                machine = Machine(bufferSize: kind.bufferSize, initial: initial, replaysAfterCompletion: kind.replaysAfterCompletion)
                buffer = initial.map(\.name).suffix(kind.bufferSize)
            }

            mutating func apply(_ input: Input) throws(Violation) -> Bool {
                defer { justRegisteredB = input == .registerB }
                switch input {
                case .subscribeA: return try subscribe("a")
                case .subscribeB:
                    // Right after registering, it is the same as subscribing at once.
                    guard !justRegisteredB else { return false }
                    return try subscribe("b")
                case .registerB:
                    guard ids["b"] == nil else { return false }
                    register("b")
                case .cancelA: return try cancel("a")
                case .cancelB: return try cancel("b")
                case .send:
                    values += 1
                    let value = Marker("v\(values)")
                    let (recipients, _) = machine.send(value)
                    if !completed {
                        buffer.append(value.name)
                        buffer = Array(buffer.suffix(kind.bufferSize))
                        for name in live { expected[name]!.append(value.name) }
                    }
                    if let recipients {
                        try require(work == nil && !completed, "became the deliverer while delivering, or after the completion")
                        work = .value(value, recipients, next: 0)
                    }
                case .complete:
                    let action = machine.complete(.finished)
                    if !completed {
                        completed = true
                        for name in live { expected[name]!.append("finished") }
                    }
                    try take(action)
                case .step:
                    guard work != nil else { return false }
                    try step()
                }
                try require(machine.isDelivering == (work != nil), "delivering: \(machine.isDelivering), with work: \(work != nil)")
                for (name, got) in received {
                    let owed = expected[name] ?? []
                    try require(got.count <= owed.count && Array(owed.prefix(got.count)) == got, "\(name) got \(got), owed \(owed)")
                }
                return true
            }

            mutating func subscribe(_ name: String) throws(Violation) -> Bool {
                if ids[name] == nil { register(name) }
                guard let subscriber = registered.removeValue(forKey: name) else { return false }
                if cancelled.contains(name) {
                    expected[name] = []
                } else if completed {
                    expected[name] = (kind.replaysAfterCompletion ? buffer : []) + ["finished"]
                } else {
                    expected[name] = buffer
                    live.insert(name)
                }
                if joinsAtOnce {
                    let (action, replaced) = machine.subscribeJoiningAtOnce(subscriber)
                    _ = replaced
                    try take(action)
                } else {
                    try take(machine.subscribe(subscriber))
                }
                return true
            }

            /// `name` registers: known to the subject, not subscribed yet.
            mutating func register(_ name: String) {
                let marker = Marker("subscriber \(name)")
                markers[name] = Watched(marker, marker.name)
                let downstream = FlowSubscriber<Marker, Never>(
                    subscription: FlowSubscription(),
                    receive: { _ in _ = marker; return .more },
                    completeMarkingSubscription: { _ in _ = marker })
                let subscriber = machine.register(downstream)
                ids[name] = subscriber.id
                names[subscriber.id.serial] = name
                received[name] = []
                expected[name] = []
                registered[name] = subscriber
            }

            mutating func cancel(_ name: String) throws(Violation) -> Bool {
                guard let id = ids[name], !cancelled.contains(name) else { return false }
                _ = machine.remove(id)
                cancelled.insert(name)
                live.remove(name)
                expected[name] = received[name]  // owed nothing more
                return true
            }

            mutating func take(_ action: Machine.Action) throws(Violation) {
                guard case .deliver(let event, let recipients) = action else { return }
                try require(work == nil, "became the deliverer while delivering")
                work = try makeWork(event, recipients)
            }

            func makeWork(_ event: Machine.Event, _ recipients: Unmanaged<Machine.Subscribers>?) throws(Violation) -> Work {
                switch event {
                case .value(let value):
                    guard let recipients else { throw Violation(description: "a value with no recipients") }
                    return .value(value, recipients, next: 0)
                case .completion:
                    guard let recipients else { throw Violation(description: "a completion with no recipients") }
                    return .completion(recipients, next: 0)
                case .subscription(let subscriber, let replay, let completion):
                    return .subscription(subscriber, replay: replay, completed: completion != nil, next: 0)
                }
            }

            /// One delivery of the event in hand, or the end of that event and the next one.
            mutating func step() throws(Violation) {
                switch work {
                case .value(let value, let list, let next):
                    if let (subscriber, position) = recipient(in: list, from: next) {
                        try deliver(value.name, to: subscriber)
                        work = .value(value, list, next: position + 1)
                        return
                    }
                case .completion(let list, let next):
                    if let (subscriber, position) = recipient(in: list, from: next) {
                        try deliver("finished", to: subscriber)
                        work = .completion(list, next: position + 1)
                        return
                    }
                    _ = machine.completionDelivered()
                case .subscription(let subscriber, let replay, let completed, let next):
                    if next < replay.count {
                        if machine.isJoining(subscriber) {
                            try deliver(replay[next].name, to: subscriber)
                            work = .subscription(subscriber, replay: replay, completed: completed, next: next + 1)
                            return
                        }
                    } else if completed {
                        if machine.leave(subscriber) { try deliver("finished", to: subscriber) }
                    } else {
                        _ = machine.admit(subscriber)
                    }
                case nil:
                    return
                }
                work = nil
                let (action, _) = machine.next()
                try take(action)
            }

            /// The first subscriber of `list` from `position` on that the deliverer does not skip.
            func recipient(in list: Unmanaged<Machine.Subscribers>, from position: Int) -> (Subscriber, Int)? {
                list._withUnsafeGuaranteedRef { list in
                    list.withUnsafeMutablePointerToElements { subscribers in
                        for index in position..<max(position, list.count) where !subscribers[index].isRemovedDuringDelivery {
                            return (subscribers[index], index)
                        }
                        return nil
                    }
                }
            }

            mutating func deliver(_ event: String, to subscriber: Subscriber) throws(Violation) {
                guard let name = names[subscriber.id.serial] else { throw Violation(description: "delivered \(event) to a stranger") }
                try require(!cancelled.contains(name), "delivered \(event) to \(name) after it was cancelled")
                received[name]!.append(event)
            }

            mutating func end() throws(Violation) -> [Watched] {
                guard work == nil else { return Array(markers.values) }
                // The deliverer is done: everyone got what it was owed, and the queue is empty.
                for (name, got) in received { try require(got == expected[name], "\(name) got \(got), owed \(expected[name]!)") }
                try require(machine.queue.isEmpty, "events left in the queue")
                // (One registered and not subscribed yet is still held by its owner, the driver.)
                for name in cancelled where registered[name] == nil {
                    try require(markers[name]?.object == nil, "\(name) is still held after it was cancelled")
                }
                if completed {
                    for (name, marker) in markers where registered[name] == nil {
                        try require(marker.object == nil, "\(name) is still held after the completion")
                    }
                }
                return Array(markers.values)
            }
        }

        static let kinds = [
            Kind(bufferSize: 0, initial: 0, replaysAfterCompletion: false),
            Kind(bufferSize: 1, initial: 1, replaysAfterCompletion: false),
            Kind(bufferSize: 2, initial: 0, replaysAfterCompletion: true),
        ]

        /// For a live subject, a behavior subject and a replaying one of two: every sequence of up
        /// to 7 inputs over {subscribeA, subscribeB, send, complete, cancelA, cancelB, registerB,
        /// step}, those the owner cannot make skipped.
        @Test(arguments: kinds)
        func everySequenceOfUpToSevenInputs(kind: Kind) {
            let count = checkEverySequence(over: Input.allCases, upTo: 7) { Driver(kind) }
            #expect(count == [0: 105_792, 1: 108_714, 2: 106_068][kind.bufferSize])
        }

        /// The same, with subscribers joining at once where nothing must reach them first (the
        /// storage's path): the same rules hold.
        @Test(arguments: kinds)
        func everySequenceOfUpToSevenInputsJoiningAtOnce(kind: Kind) {
            let count = checkEverySequence(over: Input.allCases, upTo: 7) { Driver(kind, joinsAtOnce: true) }
            #expect(count > 10_000, "the exploration ran (\(count) sequences)")
        }
    }
}
