@_spi(AsyncBridgeInternals) import AsyncBridge
@testable import AsyncBridgeOpenCombine
import OpenCombine
import Testing

/// ``FlowPublisherStateMachine`` as a plain value, for each buffering policy, driven as
/// ``FlowPublisherSubscription`` drives it (the flow's token arrives before the flow sends; a
/// value goes by the fast path, ``FlowPublisherStateMachine/unlimitedDelivery()``, when it
/// applies, which must agree with what `receive` would have decided; the delivering thread asks
/// for its next delivery, adding the demand `receive` returned).
/// Checked after each step: the subscriber gets values in the flow's order, each once, never
/// beyond its demand, then at most one completion, and nothing after it cancelled; each
/// value is delivered, dropped or let go, never two of them; the flow's token is handed back
/// once, and only once the flow's side ended. Once the subscription ended, the machine holds
/// no subscriber, no value and no token. (ExhaustiveSequences.swift is the library tests'
/// file, linked here.)
@Suite("State machines: flow publisher")
struct FlowPublisherStateMachineTests {
    typealias Machine = FlowPublisherStateMachine<Marker, Overflow, Marker>

    struct Overflow: Error {}

    enum Input: String, CustomStringConvertible, CaseIterable {
        case requestOne, requestUnlimited, cancel
        /// The flow hands over its token.
        case started
        /// The flow sends a value, or completes.
        case send, complete
        /// The delivering thread delivered and asks for its next delivery, adding no demand,
        /// or one more.
        case next, nextAskingOne
        var description: String { rawValue }
    }

    struct Driver: SequenceDriver {
        var machine: Machine
        var downstream: Watched
        /// The reference.
        var requested = 0
        var unlimited = false
        var delivered: [Int] = []
        var dropped: [Int] = []
        var sent: [Watched] = []
        var events: [String] = []
        var cancelled = false
        var flowCompleted = false
        var delivering = false
        var subscribing = false
        var token: Watched?
        var tokenHandedBack = 0
        var ended: Bool { cancelled || events.last.map { $0.hasPrefix("completion") } == true }

        init(policy: FlowPublisherBufferingPolicy<Overflow>) {
            let marker = Marker("the subscriber")
            downstream = Watched(marker, marker.name)
            machine = Machine(downstream: marker, policy: policy)
        }

        mutating func apply(_ input: Input) throws(Violation) -> Bool {
            switch input {
            case .requestOne, .requestUnlimited:
                let isOne = input == .requestOne
                switch machine.request(isOne ? .max(1) : .unlimited) {
                case .none: break
                case .subscribe:
                    try require(!subscribing && token == nil && !cancelled, "subscribed twice, or after cancelling")
                    subscribing = true
                case .drain:
                    try require(!delivering && !cancelled, "a second delivering thread, or one after cancelling")
                    delivering = true
                }
                if isOne { requested += 1 } else { unlimited = true }
            case .cancel:
                let cancellation = machine.cancel()
                if cancelled || ended {
                    try require(cancellation == nil, "cancelled twice")
                } else {
                    try require(cancellation != nil, "a cancellation handed back nothing")
                    try handBack(cancellation?.token)
                    try require(cancellation?.downstream != nil, "the subscriber was not handed back to be released")
                    var buffer = cancellation!.buffer
                    while !buffer.isEmpty { _ = buffer.removeFirst() }
                }
                cancelled = true
            case .started:
                guard subscribing else { return false }
                subscribing = false
                let made = CancellationToken {}
                token = Watched(made, "the flow's token")
                try handBack(machine.started(made), when: cancelled)
            case .send:
                guard token != nil, !flowCompleted else { return false }
                let value = Marker("v\(sent.count + 1)")
                sent.append(Watched(value, value.name))
                if machine.unlimitedDelivery() != nil {
                    // The subscription's fast path: delivered at once, the machine unchanged. It
                    // must be what the machine would have decided, with nothing to deliver after.
                    var decided = machine
                    guard case .deliver(_, let chosen) = decided.receive(value), chosen === value,
                        case .stop = decided.nextDelivery(adding: .none)
                    else { throw Violation(description: "the fast path delivered \(value), which the machine would not have delivered alone") }
                    try require(!delivering, "two threads delivering")
                    try deliver(value)
                    return true
                }
                switch machine.receive(value) {
                case .none: break
                case .deliver(_, let value):
                    try require(!delivering, "two threads delivering")
                    delivering = true
                    try deliver(value)
                case .drop(let value):
                    dropped.append(Int(value.name.dropFirst())!)
                    try require(Set(dropped).count == dropped.count, "\(value) dropped twice")
                case .overflow(let token, let drain):
                    try handBack(token)
                    if drain {
                        try require(!delivering, "two threads delivering")
                        delivering = true
                    }
                }
            case .complete:
                guard token != nil, !flowCompleted else { return false }
                flowCompleted = true
                let action = machine.complete(.finished)
                try handBack(action.token)
                if action.drain {
                    try require(!delivering, "two threads delivering")
                    delivering = true
                }
            case .next, .nextAskingOne:
                guard delivering else { return false }
                let more = input == .nextAskingOne
                if more { requested += 1 }
                switch machine.nextDelivery(adding: more ? .max(1) : .none) {
                case .value(_, let value): try deliver(value)
                case .completion(_, let completion):
                    try require(!ended, "a completion after the end")
                    events.append("completion \(completion)")
                    delivering = false
                case .stop: delivering = false
                }
            }
            return true
        }

        mutating func deliver(_ value: Marker) throws(Violation) {
            try require(!ended, "\(value) delivered after the end")
            try require(unlimited || delivered.count < requested, "\(value) delivered beyond the demand of \(requested)")
            let number = Int(value.name.dropFirst())!
            try require(delivered.last.map { $0 < number } ?? true, "\(value) delivered after v\(delivered.last!)")
            try require(!dropped.contains(number), "\(value) delivered after it was dropped")
            delivered.append(number)
            events.append(value.name)
        }

        /// The flow's token, handed back to be cancelled or released: once, and only the one given.
        mutating func handBack(_ handed: CancellationToken?, when expected: Bool? = nil) throws(Violation) {
            if let expected { try require((handed != nil) == expected, "the token handed back: \(handed != nil), expected \(expected)") }
            guard let handed else { return }
            try require(token?.object === handed, "a token that was never given was handed back")
            tokenHandedBack += 1
            try require(tokenHandedBack == 1, "the token was handed back \(tokenHandedBack) times")
        }

        mutating func end() throws(Violation) -> [Watched] {
            if case .done = machine.upstream, token != nil {
                try require(tokenHandedBack == 1 || token!.object == nil, "the flow's side ended, and its token was neither handed back nor let go")
            }
            if flowCompleted, !cancelled, !delivering, delivered.count + dropped.count == sent.count {
                try require(ended, "every value was delivered or dropped, and the completion was not")
            }
            if ended, !delivering {
                try require(downstream.object == nil, "the subscriber is still held after the end")
                try require(token?.object == nil, "the flow's token is still held after the end")
                for value in sent { try require(value.object == nil, "\(value.name) is still held after the end") }
            }
            return [downstream] + sent + (token.map { [$0] } ?? [])
        }
    }

    static let policies: [FlowPublisherBufferingPolicy<Overflow>] = [
        .unbounded, .bufferingNewest(1), .bufferingOldest(1), .failingWhenFull(limit: 1, error: Overflow()),
    ]

    /// For each policy in {unbounded, bufferingNewest(1), bufferingOldest(1),
    /// failingWhenFull(1)}: every sequence of up to 7 inputs over {requestOne, requestUnlimited,
    /// cancel, started, send, complete, next, nextAskingOne}, those the owner cannot make skipped.
    @Test(arguments: 0..<4)
    func everySequenceOfUpToSevenInputs(policy: Int) {
        let count = checkEverySequence(over: Input.allCases, upTo: 7) { Driver(policy: Self.policies[policy]) }
        #expect(count == 20_118)
    }
}
