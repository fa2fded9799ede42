@_spi(AsyncBridgeInternals) import AsyncBridge

// Timed marble diagrams, one character per step: `-` nothing, a letter a value, `|` finish,
// `#` failure, `[…]` the events of one step; spaces ignored (syntax in AsyncBridgeTesting.md).

extension FlowRecorder where Element == String {
    /// What the recorder saw, as a timed marble diagram, one character per `step` of the clock
    /// given to ``init(_:clock:)`` (a recorder made without one traps).
    ///
    /// ```swift
    /// #expect(recorder.timeline(step: .seconds(1)) == "--a-[b|]")
    /// ```
    ///
    /// An event that came between two steps is shown at the earlier one.
    public func timeline(step: Duration) -> String {
        let events = self.events
        let instants = self.instants
        precondition(instants.count == events.count, "timeline(step:) needs a recorder made with init(_:clock:)")
        var steps: [[String]] = []
        for (event, instant) in zip(events, instants) {
            let index = Int((instant.offset / step).rounded(.down))
            while steps.count <= index { steps.append([]) }
            switch event {
            case .value(let value): steps[index].append(value)
            case .finished: steps[index].append("|")
            case .failure: steps[index].append("#")
            }
        }
        return steps.map { symbols in
            switch symbols.count {
            case 0: "-"
            case 1: symbols[0]
            default: "[" + symbols.joined() + "]"
            }
        }.joined()
    }
}

extension ManualClock {
    /// Plays `input` into a flow that cannot fail: ``play(_:failure:step:expecting:isolation:_:)``
    /// without its `failure:` argument, which a flow of `Never` has no use for.
    ///
    /// ```swift
    /// let output = await clock.play("ab---c|", expecting: "---b--[c|]") {
    ///     $0.debounce(for: .seconds(2), clock: clock)
    /// }
    /// #expect(output == "---b--[c|]")
    /// ```
    public func play(
        _ input: String,
        step: Duration = .seconds(1),
        expecting expected: String,
        isolation: isolated (any Actor)? = #isolation,
        _ transform: (Flow<String, Never>) -> Flow<String, Never>
    ) async -> String {
        await play(input, failure: Never?.none, step: step, expecting: expected, isolation: isolation, transform)
    }
}

extension ManualClock {
    /// Plays `input` into a flow along this clock, one step per character, runs it through
    /// `transform`, and returns what came out as a timed marble diagram (see
    /// <doc:AsyncBridgeTesting#Timed-marble-diagrams>): a time-based operator's marble test.
    ///
    /// ```swift
    /// let clock = ManualClock()
    /// let output = await clock.play("ab---c|", expecting: "---b--[c|]") {
    ///     $0.debounce(for: .seconds(2), clock: clock)
    /// }
    /// #expect(output == "---b--[c|]")
    /// ```
    ///
    /// The input goes through a `LiveSubject` (a flow that resubscribes, like `retry`, sees only
    /// what comes after). At each step the clock advances by `step`, that step's input is sent,
    /// and the player waits until the output holds as many events as `expected` has so far: an
    /// operator that sends less keeps the test waiting until its time limit. At the end the
    /// subscription is cancelled.
    ///
    /// - Parameters:
    ///   - input: The events to send, one step per character.
    ///   - failure: The error that `#` in `input` sends (`#` without one traps).
    ///   - step: The time each character stands for.
    ///   - expected: The output you expect: it paces the player; compare the result with it.
    ///   - isolation: The caller's actor, where the player and `transform` run: a `@MainActor`
    ///     test may pass a transform that calls main-actor code (a view model's binding).
    ///   - transform: The operator under test, applied to the input flow once.
    /// - Returns: What came out, as a timed marble diagram.
    public func play<Failure: Error>(
        _ input: String,
        failure: Failure? = nil,
        step: Duration = .seconds(1),
        expecting expected: String,
        isolation: isolated (any Actor)? = #isolation,
        _ transform: (Flow<String, Failure>) -> Flow<String, Failure>
    ) async -> String {
        let inputSteps = timedMarbles(input)
        let expectedSteps = timedMarbles(expected)
        let subject = LiveSubject<String, Failure>()
        let recorder = FlowRecorder(transform(subject.flow), clock: self)
        var expectedValues = 0
        var expectsCompletion = false
        for index in 0..<max(inputSteps.count, expectedSteps.count) {
            if index > 0 { advance(by: step) }
            for symbol in index < inputSteps.count ? inputSteps[index] : [] {
                switch symbol {
                case "|": subject.finish()
                case "#":
                    guard let failure else { preconditionFailure("play: '#' needs a failure") }
                    subject.fail(failure)
                default: subject.send(symbol)
                }
            }
            for symbol in index < expectedSteps.count ? expectedSteps[index] : [] {
                if symbol == "|" || symbol == "#" { expectsCompletion = true } else { expectedValues += 1 }
            }
            if expectsCompletion {
                await recorder.waitForCompletion()
            } else {
                await recorder.waitForValues(expectedValues)
            }
        }
        recorder.cancel()
        return recorder.timeline(step: step)
    }
}

/// The symbols of each step of a timed marble diagram.
func timedMarbles(_ diagram: String) -> [[String]] {
    var steps: [[String]] = []
    var group: [String]?
    for character in diagram where character != " " {
        switch character {
        case "[":
            precondition(group == nil, "timed marbles: '[' inside a group in \"\(diagram)\"")
            group = []
        case "]":
            guard let symbols = group else { preconditionFailure("timed marbles: ']' without '[' in \"\(diagram)\"") }
            steps.append(symbols)
            group = nil
        case "-":
            precondition(group == nil, "timed marbles: '-' inside a group in \"\(diagram)\"")
            steps.append([])
        default:
            if group != nil { group!.append(String(character)) } else { steps.append([String(character)]) }
        }
    }
    precondition(group == nil, "timed marbles: '[' without ']' in \"\(diagram)\"")
    return steps
}
