import AsyncBridge
import Foundation
import OpenCombine

/// An event and the script step during which it came.
struct Stamped<Value: Equatable>: Equatable, CustomStringConvertible {
    let step: Int
    let event: FlowEvent<Value, TestError>

    /// `@3 v5`, `@4 |`, `@6 !e2`.
    var description: String {
        switch event {
        case .value(let value): "@\(step) v\(value)"
        case .finished: "@\(step) |"
        case .failure(let error): "@\(step) !\(error)"
        }
    }

    var isCompletion: Bool {
        if case .value = event { return false }
        return true
    }
}

/// What one subscription received, from either library.
///
/// Unchecked: `events` is only touched while `lock` is held (both libraries deliver on the
/// script's thread, but a delivery elsewhere would be a finding, not a crash).
final class EventLog<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [FlowEvent<Value, TestError>] = []

    func append(_ event: FlowEvent<Value, TestError>) {
        lock.lock()
        events.append(event)
        lock.unlock()
    }

    /// The events received since the last call.
    func takeAll() -> [FlowEvent<Value, TestError>] {
        lock.lock()
        defer { lock.unlock() }
        let taken = events
        events = []
        return taken
    }
}

/// The script's sources on both sides: AsyncBridge subjects and OpenCombine subjects, live
/// (`LiveSubject`, `PassthroughSubject`) or with a current value (`LatestValueSubject`,
/// `CurrentValueSubject`) when the script has initial values.
struct ScriptSources {
    let flows: [Flow<Int, TestError>]
    let publishers: [AnyPublisher<Int, TestError>]
    private let ours: [any FlowSubject<Int, TestError>]
    private let combine: [(send: (Int) -> Void, complete: (Subscribers.Completion<TestError>) -> Void)]
    /// The current values on each side (`value` of both subject types); empty for live subjects.
    let currentValues: () -> (ours: [Int], combine: [Int])

    init(for script: Script) {
        if let initial = script.initialValues {
            let ours = initial.map { LatestValueSubject<Int, TestError>(value: $0) }
            let combine = initial.map { CurrentValueSubject<Int, TestError>($0) }
            self.init(ours: ours, combine: combine) { (ours.map(\.value), combine.map(\.value)) }
        } else {
            let ours = (0..<script.sourceCount).map { _ in LiveSubject<Int, TestError>() }
            let combine = (0..<script.sourceCount).map { _ in PassthroughSubject<Int, TestError>() }
            self.init(ours: ours, combine: combine) { ([], []) }
        }
    }

    private init<Combine: Subject>(
        ours: [any FlowSubject<Int, TestError>],
        combine: [Combine],
        currentValues: @escaping () -> (ours: [Int], combine: [Int])
    ) where Combine.Output == Int, Combine.Failure == TestError {
        self.ours = ours
        self.combine = combine.map { subject in (subject.send, subject.send(completion:)) }
        flows = ours.map { $0.flow }
        publishers = combine.map { $0.eraseToAnyPublisher() }
        self.currentValues = currentValues
    }

    /// Performs a source's step on both sides (AsyncBridge first); subscriptions are not theirs.
    func perform(_ step: ScriptStep) {
        switch step {
        case .send(let value, let source):
            ours[source].send(value)
            combine[source].send(value)
        case .finish(let source):
            ours[source].finish()
            combine[source].complete(.finished)
        case .fail(let error, let source):
            ours[source].fail(error)
            combine[source].complete(.failure(error))
        case .subscribe, .cancel:
            break
        }
    }
}

/// What every subscriber of a script received from each library, stamped with the step.
struct Recording<Value: Equatable & Sendable> {
    var ours: [[Stamped<Value>]]
    var combine: [[Stamped<Value>]]
    /// The subjects' current values after each step, on each side (subjects with a current value).
    var ourValues: [[Int]] = []
    var combineValues: [[Int]] = []

    /// Runs `script` through `flow` and `publisher`, built once on the script's sources.
    init(
        _ script: Script,
        sources: ScriptSources,
        flow: Flow<Value, TestError>,
        publisher: AnyPublisher<Value, TestError>
    ) {
        let ourLogs = (0..<script.subscriberCount).map { _ in EventLog<Value>() }
        let combineLogs = (0..<script.subscriberCount).map { _ in EventLog<Value>() }
        var tokens: [Int: CancellationToken] = [:]
        var cancellables: [Int: AnyCancellable] = [:]
        ours = Array(repeating: [], count: script.subscriberCount)
        combine = ours
        for (index, step) in script.steps.enumerated() {
            switch step {
            case .subscribe(let subscriber):
                let ourLog = ourLogs[subscriber], combineLog = combineLogs[subscriber]
                tokens[subscriber] = flow.subscribe { ourLog.append($0) }
                cancellables[subscriber] = publisher.sink(
                    receiveCompletion: { combineLog.append(FlowEvent($0)) },
                    receiveValue: { combineLog.append(.value($0)) }
                )
            case .cancel(let subscriber):
                tokens[subscriber]?.cancel()
                cancellables[subscriber]?.cancel()
            default:
                sources.perform(step)
            }
            for subscriber in 0..<script.subscriberCount {
                ours[subscriber] += ourLogs[subscriber].takeAll().map { Stamped(step: index, event: $0) }
                combine[subscriber] += combineLogs[subscriber].takeAll().map { Stamped(step: index, event: $0) }
            }
            let values = sources.currentValues()
            if !values.ours.isEmpty {
                ourValues.append(values.ours)
                combineValues.append(values.combine)
            }
        }
        for token in tokens.values { token.cancel() }
        for cancellable in cancellables.values { cancellable.cancel() }
    }
}

extension FlowEvent where Failure == TestError {
    init(_ completion: Subscribers.Completion<TestError>) {
        switch completion {
        case .finished: self = .finished
        case .failure(let error): self = .failure(error)
        }
    }
}

/// The operator's parameters for one case, drawn from the case's generator after its script,
/// and written down for the report.
struct Parameters {
    var generator: SplitMix64
    /// Whether the Combine side applies the documented differences that change its pipeline
    /// (see `DocumentedDifference`); false only to show that they are needed.
    let appliesDifferences: Bool
    private(set) var labels: [String] = []
    /// The numbers drawn, by name, for a documented difference that depends on one.
    private(set) var numbers: [String: Int] = [:]

    init(generator: SplitMix64, appliesDifferences: Bool) {
        self.generator = generator
        self.appliesDifferences = appliesDifferences
    }

    mutating func int(_ name: String, in range: ClosedRange<Int>) -> Int {
        let value = generator.int(in: range)
        labels.append("\(name)=\(value)")
        numbers[name] = value
        return value
    }

    mutating func pick(_ name: String, _ options: [String]) -> String {
        let option = options[generator.int(in: 0...(options.count - 1))]
        labels.append("\(name)=\(option)")
        return option
    }
}

/// The two pipelines of one case: AsyncBridge's operator and the Combine one it is compared with.
struct Pipelines<Value: Equatable & Sendable> {
    let flow: Flow<Value, TestError>
    let publisher: AnyPublisher<Value, TestError>

    init<P: Publisher>(_ flow: Flow<Value, TestError>, _ publisher: P) where P.Output == Value, P.Failure == TestError {
        self.flow = flow
        self.publisher = publisher.eraseToAnyPublisher()
    }
}

/// Whether the order of the values that a subscriber receives during one step is compared.
enum StepOrder: Sendable {
    case compared
    /// Not compared, only which values came: the pipeline subscribes one subject more than
    /// once (the inners of a `flatMap`), and an OpenCombine subject hands a value to its
    /// subscribers in no particular order (it keeps them in a `Set`; Combine documents no order
    /// either), while AsyncBridge's go in the order they subscribed.
    case unspecified

    func normalised<Value>(_ events: [Stamped<Value>]) -> [Stamped<Value>] {
        guard self == .unspecified else { return events }
        // A completion is last in its step; values by their text, which is all a sort needs.
        return events.sorted { ($0.step, $0.isCompletion ? 1 : 0, "\($0)") < ($1.step, $1.isCompletion ? 1 : 0, "\($1)") }
    }
}

/// An operator (or a form of it) run through random scripts on both sides.
struct DifferentialOperator: Sendable, CustomStringConvertible {
    let name: String
    /// The documented difference its comparison applies, if any.
    let difference: DocumentedDifference?
    /// Runs the case of `seed`; returns the report of the first disagreement, if any.
    let check: @Sendable (_ seed: UInt64, _ applyingDifferences: Bool) -> String?

    var description: String { name }

    /// Compares AsyncBridge's `flow` with Combine's `publisher`, as `build` makes them from the
    /// script's sources (1 to 3 of them, `sources`): every subscriber's events must be equal,
    /// step by step, once `difference` turned Combine's into the ones our documentation
    /// promises.
    static func compare<Value: Equatable & Sendable>(
        _ name: String,
        sources: ClosedRange<Int> = 1...1,
        withInitialValues: Bool = false,
        stepOrder: StepOrder = .compared,
        difference: DocumentedDifference? = nil,
        _ build: @escaping @Sendable (inout Parameters, [Flow<Int, TestError>], [AnyPublisher<Int, TestError>]) -> Pipelines<Value>
    ) -> DifferentialOperator {
        DifferentialOperator(name: name, difference: difference) { seed, applyingDifferences in
            var generator = SplitMix64(seed: seed)
            let sourceCount = generator.int(in: sources)
            let script = Script(random: &generator, sourceCount: sourceCount, withInitialValues: withInitialValues)
            var parameters = Parameters(generator: generator, appliesDifferences: applyingDifferences)
            let scriptSources = ScriptSources(for: script)
            let pipelines = build(&parameters, scriptSources.flows, scriptSources.publishers)
            let recording = Recording(script, sources: scriptSources, flow: pipelines.flow, publisher: pipelines.publisher)
            let reportHeader = """
                \(name)\(parameters.labels.isEmpty ? "" : " (\(parameters.labels.joined(separator: ", ")))"): \
                AsyncBridge and Combine disagree
                  rerun:    DIFF_SEED='\(name):\(seed)' swift test --package-path CombineChecks --filter DifferentialTests
                  script:   \(script)
                """
            for subscriber in 0..<script.subscriberCount {
                let combine = recording.combine[subscriber]
                let expected = applyingDifferences
                    ? difference?.expected(from: combine, script: script, subscriber: subscriber, parameters: parameters) ?? combine
                    : combine
                guard stepOrder.normalised(recording.ours[subscriber]) != stepOrder.normalised(expected) else { continue }
                let applied = expected == combine ? "" : "\n  expected: \(expected)   (\(difference?.rawValue ?? "") applied)"
                return """
                    \(reportHeader)
                      subscriber \(subscriber)\(stepOrder == .unspecified ? " (the order within a step is not compared)" : ""):
                      Combine:  \(combine)\(applied)
                      ours:     \(recording.ours[subscriber])
                    """
            }
            if recording.ourValues != recording.combineValues {
                return """
                    \(reportHeader)
                      current values after each step:
                      Combine:  \(recording.combineValues)
                      ours:     \(recording.ourValues)
                    """
            }
            return nil
        }
    }
}
