@testable import AsyncBridge
import Testing

extension ExhaustiveStateMachineSuites {
    /// ``SerialDrain`` on one thread, its receiver reacting to some events by submitting or
    /// closing from inside the delivery (the re-entrant calls a drain exists for). Against the
    /// obvious semantics: events accepted (submitted while open) are delivered once each, in submission order, never overlapping; none starts after
    /// the drain closed; every submission reports what it found; once the outermost call returns,
    /// nothing accepted is left undelivered unless the drain closed, and the drain holds no event
    /// and, once closed, no receiver.
    @Suite("State machines: serial drain")
    struct SerialDrainTests {
        /// What the receiver does when it gets an event.
        indirect enum Reaction: CustomStringConvertible, Sendable {
            case nothing, close
            case submit(Reaction)
            /// One reaction, then the other.
            case then(Reaction, Reaction)

            var description: String {
                switch self {
                case .nothing: ""
                case .close: "close"
                case .submit(let reaction): "submit{\(reaction)}"
                case .then(let first, let second): "\(first); \(second)"
                }
            }
        }

        /// An input from outside: a submission whose event makes the receiver react, or a call.
        enum Input: CustomStringConvertible {
            case submit(Reaction)
            case call(Reaction)

            var description: String {
                switch self {
                case .submit(let reaction): "submit{\(reaction)}"
                case .call(let reaction): "\(reaction)"
                }
            }

            static let alphabet: [Input] = [
                .submit(.nothing), .submit(.close),
                .submit(.submit(.nothing)), .submit(.submit(.close)), .submit(.submit(.submit(.nothing))),
                .submit(.then(.submit(.nothing), .close)), .submit(.then(.submit(.close), .submit(.nothing))),
                .call(.close),
            ]
        }

        struct Event: Sendable {
            let id: Int
            let reaction: Reaction
            let marker: Marker
        }

        /// The reference, shared by the driver and the receiver.
        // Unchecked: an exhaustive run drives the machine on one thread, and whatever the
        // machine hands out that writes here runs on that thread, inside the step that triggers it.
        final class Model: @unchecked Sendable {
            var closed = false
            var accepted: [Int] = []
            var delivered: [Int] = []
            var depth = 0
            var events: [Watched] = []
            var violation: Violation?

            func check(_ condition: Bool, _ message: @autoclosure () -> String) {
                if !condition, violation == nil { violation = Violation(description: message()) }
            }

            func receive(_ drain: SerialDrain<Event>, _ event: Event) {
                check(depth == 0, "event \(event.id) delivered inside another delivery")
                check(!closed, "event \(event.id) delivered after the drain closed")
                check(accepted.count > delivered.count && accepted[delivered.count] == event.id,
                      "event \(event.id) delivered, expected \(accepted.count > delivered.count ? "\(accepted[delivered.count])" : "none")")
                delivered.append(event.id)
                depth += 1
                perform(event.reaction, on: drain)
                depth -= 1
            }

            func perform(_ reaction: Reaction, on drain: SerialDrain<Event>) {
                switch reaction {
                case .nothing: break
                case .close:
                    drain.close()
                    closed = true
                case .submit(let next): submit(next, to: drain)
                case .then(let first, let second):
                    perform(first, on: drain)
                    perform(second, on: drain)
                }
            }

            func submit(_ reaction: Reaction, to drain: SerialDrain<Event>) {
                let event = Event(id: events.count + 1, reaction: reaction, marker: Marker("event \(events.count + 1)"))
                events.append(Watched(event.marker, event.marker.name))
                let accepts = !closed
                if accepts { accepted.append(event.id) }
                let open = drain.submit(event)
                check(open == !closed, "submitting event \(event.id) reported open: \(open), expected \(!closed)")
            }
        }

        struct Driver: SequenceDriver {
            let model = Model()
            let drain: SerialDrain<Event>
            let receiver: Watched

            init() {
                let marker = Marker("the receiver")
                receiver = Watched(marker, marker.name)
                drain = SerialDrain { [model] drain, event in
                    _ = marker
                    model.receive(drain, event)
                }
            }

            mutating func apply(_ input: Input) throws(Violation) -> Bool {
                switch input {
                case .submit(let reaction): model.submit(reaction, to: drain)
                case .call(let reaction): model.perform(reaction, on: drain)
                }
                if let violation = model.violation { throw violation }
                try require(!drain.isDelivering, "still delivering once the outermost call returned")
                try require(model.closed || model.delivered == model.accepted,
                            "delivered \(model.delivered) of \(model.accepted), and the drain is open")
                try require(drain.isClosed == model.closed, "closed: \(drain.isClosed), expected \(model.closed)")
                for event in model.events { try require(event.object == nil, "\(event.name) is still held") }
                if model.closed { try require(receiver.object == nil, "the receiver is still held after the drain closed") }
                return true
            }

            mutating func end() throws(Violation) -> [Watched] {
                model.events + [receiver]
            }
        }

        /// Every sequence of up to 5 inputs from outside over {submit (the receiver doing nothing,
        /// closing, submitting an event that does nothing, closes, or submits again; submitting then
        /// closing; submitting an event that closes, then another), close}.
        @Test func everySequenceOfUpToFiveInputs() {
            let count = checkEverySequence(over: Input.alphabet, upTo: 5) { Driver() }
            #expect(count == 37_449)  // 1 + 8 + 8² + 8³ + 8⁴ + 8⁵: none is skipped
        }
    }
}
