import Testing
import AsyncBridge
import AsyncBridgeTesting

/// A flow whose values the test sends by hand, with a count of cancellations.
final class ManualFlow<Element: Sendable>: Sendable {
    let cancels = AtomicCounter()
    private let emitter = Box<FlowEmitter<Element, TestError>?>(nil)

    var flow: Flow<Element, TestError> {
        Flow.create { [emitter, cancels] sink in
            emitter.value = sink
            sink.onCancel { cancels.increment() }
        }
    }

    func send(_ value: Element) { emitter.value?.send(value) }
    func finish() { emitter.value?.finish() }
    func fail(_ error: TestError = TestError()) { emitter.value?.fail(error) }
}

/// The helpers of the suites over several manual sources of letters.
protocol ManualSourcesSuite {}

extension ManualSourcesSuite {
    /// `count` manual sources of letters.
    static func sources(_ count: Int) -> [ManualFlow<String>] {
        (0..<count).map { _ in ManualFlow<String>() }
    }

    /// How many times each source was cancelled.
    static func cancels(_ sources: [ManualFlow<String>]) -> [Int] {
        sources.map(\.cancels.value)
    }
}
