import AsyncBridge
import OpenCombine

/// What subscribing and cancelling cost as a subject's audience grows: per operation, one
/// subscriber subscribes to a `LiveSubject` that already has N others and cancels
/// (`subject-subscribe-cancel-N`), and 10,000 subscribers attach one after another, then are all
/// cancelled, in the order they came (`subject-attach-10000`, per subscriber). The peer is
/// OpenCombine's `PassthroughSubject` with `sink`s, doing the same.
let subscriberScalingCases: [BenchmarkCase] =
    [0, 10, 1_000, 10_000].map { others in
        BenchmarkCase(
            id: "subject-subscribe-cancel-\(others)",
            peer: "OpenCombine PassthroughSubject",
            ratio: .speedup(atLeast: 2),
            allocations: .counted,
            ours: { try await subscribeAndCancel(iterations: $0, others: others) },
            peerBody: { try await openCombineSubscribeAndCancel(iterations: $0, others: others) }
        )
    } + [
        BenchmarkCase(
            id: "subject-attach-10000",
            peer: "OpenCombine PassthroughSubject",
            ratio: .speedup(atLeast: 2),
            allocations: .counted,
            ours: attachTenThousand,
            peerBody: openCombineAttachTenThousand
        ),
    ]

/// How many subscribers `subject-attach-10000` attaches before cancelling them all.
let attachedAtOnce = 10_000

/// `iterations` subscriptions, each subscribed and cancelled while `others` subscribers stay.
/// The subject with its `others` is made once per process, so a run times the subscriptions
/// alone.
func subscribeAndCancel(iterations: Int, others: Int) async throws {
    let subject = ourAudience(others)
    let sink = opaque { (value: Int) -> Void in blackHole(value) }
    for _ in 0..<opaque(iterations) {
        subject.flow.subscribe(onValue: sink, onCompletion: { _ in }).cancel()
    }
}

func openCombineSubscribeAndCancel(iterations: Int, others: Int) async throws {
    let subject = peerAudience(others)
    let sink = opaque { (value: Int) -> Void in blackHole(value) }
    for _ in 0..<opaque(iterations) {
        subject.sink(receiveValue: sink).cancel()
    }
}

/// The subjects of `subject-subscribe-cancel-N` with their N subscribers, by N. The cases run
/// one at a time, on one thread.
nonisolated(unsafe) private var ourAudiences: [Int: LiveSubject<Int, Never>] = [:]
nonisolated(unsafe) private var peerAudiences: [Int: (subject: PassthroughSubject<Int, Never>, staying: [AnyCancellable])] = [:]

func ourAudience(_ others: Int) -> LiveSubject<Int, Never> {
    if let subject = ourAudiences[others] { return subject }
    let subject = LiveSubject<Int, Never>()
    let sink = opaque { (value: Int) -> Void in blackHole(value) }
    for _ in 0..<others { _ = subject.flow.subscribe(onValue: sink, onCompletion: { _ in }) }
    ourAudiences[others] = subject
    return subject
}

func peerAudience(_ others: Int) -> PassthroughSubject<Int, Never> {
    if let audience = peerAudiences[others] { return audience.subject }
    let subject = PassthroughSubject<Int, Never>()
    let sink = opaque { (value: Int) -> Void in blackHole(value) }
    peerAudiences[others] = (subject, (0..<others).map { _ in subject.sink(receiveValue: sink) })
    return subject
}

/// `iterations` subscriptions, in rounds of up to 10,000: attached one after another, then
/// cancelled in the order they came. (A run shorter than a round attaches fewer at once.)
func attachTenThousand(_ iterations: Int) async throws {
    let subject = LiveSubject<Int, Never>()
    let sink = opaque { (value: Int) -> Void in blackHole(value) }
    var remaining = opaque(iterations)
    while remaining > 0 {
        let round = min(remaining, attachedAtOnce)
        let tokens = (0..<round).map { _ in subject.flow.subscribe(onValue: sink, onCompletion: { _ in }) }
        for token in tokens { token.cancel() }
        remaining -= round
    }
}

func openCombineAttachTenThousand(_ iterations: Int) async throws {
    let subject = PassthroughSubject<Int, Never>()
    let sink = opaque { (value: Int) -> Void in blackHole(value) }
    var remaining = opaque(iterations)
    while remaining > 0 {
        let round = min(remaining, attachedAtOnce)
        let cancellables = (0..<round).map { _ in subject.sink(receiveValue: sink) }
        for cancellable in cancellables { cancellable.cancel() }
        remaining -= round
    }
}
