@testable import AsyncBridge
import Testing

extension ExhaustiveStateMachineSuites {
    /// ``CombineLatestStateMachine`` and ``ZipStateMachine`` as plain values, against per-source
    /// lists of the values sent and which sources finished. combineLatest sends every source's
    /// latest value each time one sends, once all have sent, and finishes when all have finished or
    /// one finishes without having sent; zip sends the n-th value of every source as soon as all
    /// have one, and finishes once a finished source has no value left to zip. A value replaced
    /// (combineLatest) or zipped away (zip) is held no more, and nothing is once the machine is gone.
    /// A failure is the core's, not the machine's, so it is no input here.
    @Suite("State machines: combineLatest and zip")
    struct CombiningStateMachineTests {
        enum Input: CustomStringConvertible {
            /// Source `i` sends its next value (its k-th is named "i.k").
            case send(Int)
            case finish(Int)

            static func alphabet(sources: Int) -> [Input] {
                (0..<sources).flatMap { [.send($0), .finish($0)] }
            }

            var description: String {
                switch self {
                case .send(let index): "send(\(index))"
                case .finish(let index): "finish(\(index))"
                }
            }
        }

        enum Rule { case combineLatest, zip }

        /// What the reference expects of one input, in the terms of ``CombiningAction``.
        enum Expected: Equatable, CustomStringConvertible {
            case none
            case send([String], thenFinish: Bool)
            case finish

            var description: String {
                switch self {
                case .none: ".none"
                case .send(let names, let thenFinish): ".send([\(names.joined(separator: ", "))], thenFinish: \(thenFinish))"
                case .finish: ".finish"
                }
            }
        }

        struct Driver<Machine: CombiningStateMachine>: SequenceDriver {
            let rule: Rule
            var machine: Machine
            /// Tags a value with its source, as the operator does.
            let tag: (Int, Marker) -> Machine.Sources.Value
            /// The values of a combination, in the order of the sources.
            let values: (Machine.Sources.Combined) -> [Marker]

            /// The reference: every value each source sent, in order (only the machine holds
            /// them), which sources finished, how many combinations zip made, and whether the
            /// machine said the flow ends.
            var sent: [[Watched]]
            var finished: [Bool]
            var zipped = 0
            var ended = false

            init(
                _ rule: Rule, _ machine: Machine,
                tag: @escaping (Int, Marker) -> Machine.Sources.Value,
                values: @escaping (Machine.Sources.Combined) -> [Marker]
            ) {
                self.rule = rule
                self.machine = machine
                self.tag = tag
                self.values = values
                sent = Array(repeating: [], count: machine.sourceCount)
                finished = Array(repeating: false, count: machine.sourceCount)
            }

            mutating func apply(_ input: Input) throws(Violation) -> Bool {
                guard try step(input) else { return false }
                // The action, and the values it carried, are gone (`step` returned): a value no
                // combination can take any more must not be held by the machine.
                for (index, values) in sent.enumerated() {
                    let stale = rule == .zip ? values.prefix(zipped) : values.dropLast()
                    for value in stale {
                        try require(value.object == nil, "\(value.name) is still held, \(rule == .zip ? "zipped" : "replaced") (source \(index))")
                    }
                }
                return true
            }

            /// Feeds `input` and compares the action with the reference's; `false` if it cannot
            /// happen (the flow ended, or the source already finished: the core feeds neither).
            mutating func step(_ input: Input) throws(Violation) -> Bool {
                let action: CombiningAction<Machine.Sources.Combined>
                let expected: Expected
                switch input {
                case .send(let index):
                    guard !ended, !finished[index] else { return false }
                    let marker = Marker("\(index).\(sent[index].count)")
                    sent[index].append(Watched(marker, marker.name))
                    action = machine.received(tag(index, marker))
                case .finish(let index):
                    guard !ended, !finished[index] else { return false }
                    finished[index] = true
                    action = machine.finished(at: index)
                }
                switch rule {
                case .combineLatest:
                    switch input {
                    case .send:
                        expected = sent.allSatisfy { !$0.isEmpty } ? .send(sent.map { $0.last!.name }, thenFinish: false) : .none
                    case .finish(let index):
                        expected = finished.allSatisfy { $0 } || sent[index].isEmpty ? .finish : .none
                    }
                case .zip:
                    // At most one new combination: before this input, none was complete.
                    let complete = sent.allSatisfy { $0.count > zipped }
                    let combined = complete ? sent.map { $0[zipped].name } : []
                    if complete { zipped += 1 }
                    let exhausted = sent.indices.contains { finished[$0] && sent[$0].count == zipped }
                    expected = complete ? .send(combined, thenFinish: exhausted) : exhausted ? .finish : .none
                }
                let actual: Expected = switch action {
                case .none: .none
                case .send(let combined, let thenFinish): .send(values(combined).map(\.name), thenFinish: thenFinish)
                case .finish: .finish
                }
                try require(actual == expected, "\(actual), expected \(expected)")
                switch expected {
                case .finish, .send(_, thenFinish: true): ended = true
                case .none, .send(_, thenFinish: false): break
                }
                return true
            }

            mutating func end() throws(Violation) -> [Watched] {
                sent.flatMap { $0 }
            }
        }

        /// Three sources as the operators of three flows keep them: typed, the fourth a filler.
        static func threeTyped<Machine>(
            _ rule: Rule, _ machine: (TypedSources<Marker, Marker, Marker, Void>) -> Machine
        ) -> Driver<Machine> where Machine.Sources == TypedSources<Marker, Marker, Marker, Void> {
            Driver(rule, machine(TypedSources(filling: (nil, ()))), tag: { index, value in
                switch index {
                case 0: .first(value)
                case 1: .second(value)
                default: .third(value)
                }
            }, values: { [$0.0, $0.1, $0.2] })
        }

        /// Two sources as the operators of two flows keep them: typed, the third and fourth fillers.
        static func twoTyped<Machine>(
            _ rule: Rule, _ machine: (TypedSources<Marker, Marker, Void, Void>) -> Machine
        ) -> Driver<Machine> where Machine.Sources == TypedSources<Marker, Marker, Void, Void> {
            Driver(rule, machine(TypedSources(filling: ((), ()))), tag: { index, value in
                index == 0 ? .first(value) : .second(value)
            }, values: { [$0.0, $0.1] })
        }

        /// Three sources as the operators of a collection of flows keep them: in arrays.
        static func threeInArrays<Machine>(
            _ rule: Rule, _ machine: (ArraySources<Marker>) -> Machine
        ) -> Driver<Machine> where Machine.Sources == ArraySources<Marker> {
            Driver(rule, machine(ArraySources(count: 3)), tag: { ($0, $1) }, values: { $0 })
        }

        /// Every sequence of up to 8 inputs over {send, finish} × three typed sources.
        @Test func combineLatestOfThreeEverySequenceOfUpToEightInputs() {
            let count = checkEverySequence(over: Input.alphabet(sources: 3), upTo: 8) {
                Self.threeTyped(.combineLatest, CombineLatestStateMachine.init)
            }
            #expect(count == 55_201)
        }

        /// Every sequence of up to 8 inputs over {send, finish} × three typed sources.
        @Test func zipOfThreeEverySequenceOfUpToEightInputs() {
            let count = checkEverySequence(over: Input.alphabet(sources: 3), upTo: 8) {
                Self.threeTyped(.zip, ZipStateMachine.init)
            }
            #expect(count == 35_257)
        }

        /// Every sequence of up to 10 inputs over {send, finish} × two typed sources.
        @Test func combineLatestOfTwoEverySequenceOfUpToTenInputs() {
            let count = checkEverySequence(over: Input.alphabet(sources: 2), upTo: 10) {
                Self.twoTyped(.combineLatest, CombineLatestStateMachine.init)
            }
            #expect(count == 7_965)
        }

        /// Every sequence of up to 10 inputs over {send, finish} × two typed sources.
        @Test func zipOfTwoEverySequenceOfUpToTenInputs() {
            let count = checkEverySequence(over: Input.alphabet(sources: 2), upTo: 10) {
                Self.twoTyped(.zip, ZipStateMachine.init)
            }
            #expect(count == 5_241)
        }

        /// Every sequence of up to 7 inputs over {send, finish} × three sources kept in arrays.
        @Test func combineLatestOfThreeInArraysEverySequenceOfUpToSevenInputs() {
            let count = checkEverySequence(over: Input.alphabet(sources: 3), upTo: 7) {
                Self.threeInArrays(.combineLatest, CombineLatestStateMachine.init)
            }
            #expect(count == 16_195)
        }

        /// Every sequence of up to 7 inputs over {send, finish} × three sources kept in arrays.
        @Test func zipOfThreeInArraysEverySequenceOfUpToSevenInputs() {
            let count = checkEverySequence(over: Input.alphabet(sources: 3), upTo: 7) {
                Self.threeInArrays(.zip, ZipStateMachine.init)
            }
            #expect(count == 11_371)
        }
    }
}
