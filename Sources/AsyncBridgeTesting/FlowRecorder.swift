@_spi(AsyncBridgeInternals) import AsyncBridge

/// Subscribes to a flow and records what it sees as equatable values, so a test can compare
/// the whole history at once.
///
/// ```swift
/// let recorder = FlowRecorder(Flow<Int, Never>.sequence([1, 2]))
/// #expect(recorder.events == [.value(1), .value(2), .finished])
/// ```
public final class FlowRecorder<Element: Sendable, Failure: Error>: Sendable {
    private struct State {
        var events: [FlowEvent<Element, Failure>] = []
        var completionWaiters: [CheckedContinuation<Void, Never>] = []
        var valueWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = SharedLock(State())
    private let token = SharedLock<CancellationToken?>(nil)

    /// Subscribes to `flow` at once.
    ///
    /// ```swift
    /// let recorder = FlowRecorder(subject.flow)
    /// ```
    public init(_ flow: Flow<Element, Failure>) {
        let subscription = flow.subscribe { [weak self] event in self?.record(event) }
        token.withLock { $0 = subscription }
    }

    private func record(_ event: FlowEvent<Element, Failure>) {
        let (completionWaiters, valueWaiters) = state.withLock { state in
            state.events.append(event)
            let values = state.events.count { if case .value = $0 { true } else { false } }
            let isCompletion = if case .value = event { false } else { true }
            let ready = state.valueWaiters.filter { isCompletion || $0.count <= values }
            state.valueWaiters.removeAll { isCompletion || $0.count <= values }
            let completions = isCompletion ? state.completionWaiters : []
            if isCompletion { state.completionWaiters = [] }
            return (completions, ready.map(\.continuation))
        }
        for waiter in completionWaiters + valueWaiters { waiter.resume() }
    }

    /// Everything seen so far, in order.
    ///
    /// ```swift
    /// #expect(recorder.events == [.value(1), .finished])
    /// ```
    public var events: [FlowEvent<Element, Failure>] { state.withLock { $0.events } }

    /// The values seen so far, in order.
    ///
    /// ```swift
    /// #expect(recorder.values == [1, 2])
    /// ```
    public var values: [Element] {
        events.compactMap { if case .value(let value) = $0 { value } else { nil } }
    }

    /// Whether the flow has finished or failed.
    ///
    /// ```swift
    /// #expect(!recorder.isCompleted)
    /// ```
    public var isCompleted: Bool {
        events.contains { if case .value = $0 { false } else { true } }
    }

    /// Cancels the subscription.
    ///
    /// ```swift
    /// recorder.cancel()
    /// ```
    public func cancel() {
        token.withLock { $0 }?.cancel()
    }

    /// Waits until the flow has finished or failed (returns at once if it has).
    ///
    /// ```swift
    /// await recorder.waitForCompletion()
    /// ```
    public func waitForCompletion() async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Bool in
                if state.events.contains(where: { if case .value = $0 { false } else { true } }) { return true }
                state.completionWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Waits until at least `count` values have arrived, or the flow completed.
    ///
    /// ```swift
    /// await recorder.waitForValues(3)
    /// ```
    public func waitForValues(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Bool in
                let values = state.events.count { if case .value = $0 { true } else { false } }
                let completed = state.events.contains { if case .value = $0 { false } else { true } }
                if values >= count || completed { return true }
                state.valueWaiters.append((count, continuation))
                return false
            }
            if done { continuation.resume() }
        }
    }
}

/// Events written as a marble string, for compact expectations: each character is a value,
/// `|` finishes, `#` fails with `failure`, and `-` is a separator that stands for nothing (a
/// step of time, in the time-based tests).
///
/// ```swift
/// #expect(FlowRecorder(letters).events == marbles("ab-c|"))
/// ```
public func marbles<Failure: Error>(
    _ diagram: String,
    failure: Failure? = nil
) -> [FlowEvent<String, Failure>] {
    diagram.compactMap { character -> FlowEvent<String, Failure>? in
        switch character {
        case "-", " ": return nil
        case "|": return .finished
        case "#":
            guard let failure else { preconditionFailure("marbles: '#' needs a failure") }
            return .failure(failure)
        default: return .value(String(character))
        }
    }
}

/// A flow that sends the values of a marble string at once, then completes as it says.
///
/// ```swift
/// let letters: Flow<String, Never> = marbleFlow("abc|")
/// ```
public func marbleFlow<Failure: Error>(_ diagram: String, failure: Failure? = nil) -> Flow<String, Failure> {
    let events = marbles(diagram, failure: failure)
    return Flow.create { emitter in
        for event in events {
            switch event {
            case .value(let value): emitter.send(value)
            case .finished: emitter.finish()
            case .failure(let error): emitter.fail(error)
            }
        }
    }
}
