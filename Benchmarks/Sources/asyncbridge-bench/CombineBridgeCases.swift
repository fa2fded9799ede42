import AsyncBridge
import AsyncBridgeOpenCombine
import OpenCombine

/// The Combine bridge (`Sources/AsyncBridge/Combine`, compiled against OpenCombine):
/// `flow-publisher-sink` sends into a subject whose flow a Combine `sink` consumes through
/// `flow.publisher` (demand `.unlimited`, so nothing waits in the bridge's buffer), against the
/// same sends into an OpenCombine `PassthroughSubject` consumed by the same `sink`: what the
/// bridge costs a Combine consumer per value. `flow-publisher-lifecycle` is the same per
/// subscription: subscribe, one value, cancel.
let combineBridgeCases: [BenchmarkCase] = [
    BenchmarkCase(
        id: "flow-publisher-sink",
        peer: "OpenCombine PassthroughSubject + sink",
        ratio: .speedup(atLeast: nil),
        allocations: .counted,
        ours: flowPublisherSink,
        peerBody: openCombineSubjectSink
    ),
    BenchmarkCase(
        id: "flow-publisher-lifecycle",
        peer: "OpenCombine PassthroughSubject + sink",
        ratio: .speedup(atLeast: nil),
        allocations: .counted,
        ours: flowPublisherLifecycle,
        peerBody: openCombineSubjectSinkLifecycle
    ),
]

/// `iterations` sends: `LiveSubject` → `flow.publisher` → `sink`.
func flowPublisherSink(_ iterations: Int) async throws {
    let subject = LiveSubject<Int, Never>()
    let cancellable = subject.flow.publisher.sink(receiveValue: opaque { blackHole($0) })
    for value in 0..<opaque(iterations) { subject.send(value) }
    cancellable.cancel()
}

/// `iterations` sends: `PassthroughSubject` → `sink`.
func openCombineSubjectSink(_ iterations: Int) async throws {
    let subject = PassthroughSubject<Int, Never>()
    let cancellable = subject.sink(receiveValue: opaque { blackHole($0) })
    for value in 0..<opaque(iterations) { subject.send(value) }
    cancellable.cancel()
}

/// `iterations` subscriptions to one subject through `flow.publisher`: subscribe, one value,
/// cancel.
func flowPublisherLifecycle(_ iterations: Int) async throws {
    let subject = LiveSubject<Int, Never>()
    let publisher = subject.flow.publisher
    let sink = opaque { blackHole($0) }
    for value in 0..<opaque(iterations) {
        let cancellable = publisher.sink(receiveValue: sink)
        subject.send(value)
        cancellable.cancel()
    }
}

/// The same with a `PassthroughSubject` and `sink`.
func openCombineSubjectSinkLifecycle(_ iterations: Int) async throws {
    let subject = PassthroughSubject<Int, Never>()
    let sink = opaque { blackHole($0) }
    for value in 0..<opaque(iterations) {
        let cancellable = subject.sink(receiveValue: sink)
        subject.send(value)
        cancellable.cancel()
    }
}
