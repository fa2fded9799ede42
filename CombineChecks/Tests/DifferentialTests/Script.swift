/// The failure every source of a script can send; the code tells failures apart.
struct TestError: Error, Equatable, CustomStringConvertible {
    var code: Int
    var description: String { "e\(code)" }
}

/// SplitMix64 (Steele, Lea and Flood, 2014): a small generator whose sequence depends on its
/// seed alone, on every platform, so that a case's seed is enough to run it again.
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `range` (the modulo's bias is too small to matter here).
    mutating func int(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }
}

/// One thing a script does, to both libraries at once.
enum ScriptStep: Equatable, CustomStringConvertible {
    /// Subscriber `n` subscribes to the pipeline under test.
    case subscribe(Int)
    /// Subscriber `n` cancels its subscription.
    case cancel(Int)
    /// A source (a subject) sends a value.
    case send(Int, source: Int)
    case finish(source: Int)
    case fail(TestError, source: Int)

    /// `+1` subscribe, `-1` cancel, `s0=3` send, `s0|` finish, `s0!e2` fail.
    var description: String {
        switch self {
        case .subscribe(let subscriber): "+\(subscriber)"
        case .cancel(let subscriber): "-\(subscriber)"
        case .send(let value, let source): "s\(source)=\(value)"
        case .finish(let source): "s\(source)|"
        case .fail(let error, let source): "s\(source)!\(error)"
        }
    }
}

/// What a source does, as one subscription sees it.
enum SourceEvent: Equatable {
    case value(Int)
    case finished
    case failure(TestError)
}

/// A random, interleaved sequence of events over 1–3 sources, watched by 1–3 subscribers that
/// subscribe and cancel at points of their own. Demand is unlimited; every step runs on the
/// test's thread, on both sides, before the next.
struct Script: CustomStringConvertible {
    let sourceCount: Int
    let subscriberCount: Int
    /// The sources' values before the first step, for subjects with a current value
    /// (`LatestValueSubject`, `CurrentValueSubject`); `nil` for live subjects.
    let initialValues: [Int]?
    /// Subscriber 0 subscribes at step 0; the others at a later step, if they get to.
    let steps: [ScriptStep]

    init(random generator: inout SplitMix64, sourceCount: Int, withInitialValues: Bool) {
        self.sourceCount = sourceCount
        subscriberCount = generator.int(in: 1...3)
        initialValues = withInitialValues ? (0..<sourceCount).map { _ in generator.int(in: 0...5) } : nil
        var steps: [ScriptStep] = [.subscribe(0)]
        var subscribed = 1
        var listening = [0]
        // Each step: 10 % a subscriber joins (while one is left), 4 % one leaves, 6 % a source
        // finishes, 4 % one fails, else a source sends 0-5 (small values, so that duplicates,
        // matches and throwing values are common). Sends after a completion are kept: both
        // sides must ignore them.
        for _ in 0..<generator.int(in: 0...24) {
            let source = generator.int(in: 0...(sourceCount - 1))
            switch generator.int(in: 0...99) {
            case 0..<10 where subscribed < subscriberCount:
                steps.append(.subscribe(subscribed))
                listening.append(subscribed)
                subscribed += 1
            case 10..<14 where !listening.isEmpty:
                steps.append(.cancel(listening.remove(at: generator.int(in: 0...(listening.count - 1)))))
            case 14..<20:
                steps.append(.finish(source: source))
            case 20..<24:
                steps.append(.fail(TestError(code: generator.int(in: 1...3)), source: source))
            default:
                steps.append(.send(generator.int(in: 0...5), source: source))
            }
        }
        self.steps = steps
    }

    var description: String {
        let initial = initialValues.map { "initial \($0), " } ?? ""
        return "\(initial)\(steps.map(\.description).joined(separator: " "))"
    }

    /// The step at which `subscriber` subscribed, and the one at which it cancelled.
    func lifetime(of subscriber: Int) -> (subscribed: Int?, cancelled: Int?) {
        (steps.firstIndex(of: .subscribe(subscriber)), steps.firstIndex(of: .cancel(subscriber)))
    }

    /// What a live subject's subscriber sees of `source` from `subscriber`'s subscription to its
    /// cancellation, stamped with the step: a completion that came before the subscription is
    /// seen at the subscription (a subject hands it to late subscribers); nothing follows a
    /// completion.
    func events(of source: Int, seenBy subscriber: Int) -> [(step: Int, event: SourceEvent)] {
        let (subscribed, cancelled) = lifetime(of: subscriber)
        guard let subscribed else { return [] }
        var seen: [(step: Int, event: SourceEvent)] = []
        for (step, action) in steps.enumerated() where step < (cancelled ?? .max) {
            let event: SourceEvent
            switch action {
            case .send(let value, source) where step > subscribed: event = .value(value)
            case .finish(source: source): event = .finished
            case .fail(let error, source: source): event = .failure(error)
            default: continue
            }
            seen.append((max(step, subscribed), event))
            if case .value = event { continue }
            break
        }
        return seen
    }
}
