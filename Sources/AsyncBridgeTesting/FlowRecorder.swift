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
        /// When each event came, on `clock` (empty without a clock).
        var instants: [ManualClock.Instant] = []
        /// Tasks waiting for a number of values (`nil`: for the completion), by id.
        var waiters: [UInt64: (count: Int?, continuation: CheckedContinuation<Void, Never>)] = [:]
        var nextWaiterID: UInt64 = 0
        var valueCount = 0
        var isCompleted = false
    }

    private let state = SharedLock(State())
    private let token = SharedLock<CancellationToken?>(nil)
    private let clock: ManualClock?

    /// Subscribes to `flow` at once.
    ///
    /// ```swift
    /// let recorder = FlowRecorder(subject.flow)
    /// ```
    public init(_ flow: Flow<Element, Failure>) {
        clock = nil
        let subscription = flow.subscribe { [weak self] event in self?.record(event) }
        token.withLock { $0 = subscription }
    }

    /// Subscribes to `flow` at once, and notes the time of every event on `clock`, for
    /// ``timeline(step:)``.
    ///
    /// ```swift
    /// let recorder = FlowRecorder(subject.flow.debounce(for: .seconds(2), clock: clock), clock: clock)
    /// ```
    public init(_ flow: Flow<Element, Failure>, clock: ManualClock) {
        self.clock = clock
        let subscription = flow.subscribe { [weak self] event in self?.record(event) }
        token.withLock { $0 = subscription }
    }

    private func record(_ event: FlowEvent<Element, Failure>) {
        let now = clock?.now
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.events.append(event)
            if let now { state.instants.append(now) }
            if case .value = event { state.valueCount += 1 } else { state.isCompleted = true }
            let due = state.waiters.filter { state.isCompleted || ($0.value.count ?? .max) <= state.valueCount }
            for id in due.keys { state.waiters[id] = nil }
            return due.values.map(\.continuation)
        }
        for waiter in ready { waiter.resume() }
    }

    /// Everything seen so far, in order.
    ///
    /// ```swift
    /// #expect(recorder.events == [.value(1), .finished])
    /// ```
    public var events: [FlowEvent<Element, Failure>] { state.withLock { $0.events } }

    /// When each event came, on the clock given to ``init(_:clock:)`` (empty without one).
    ///
    /// ```swift
    /// #expect(recorder.instants == [.init(offset: .seconds(3))])
    /// ```
    public var instants: [ManualClock.Instant] { state.withLock { $0.instants } }

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

    /// Waits until the flow has finished or failed (returns at once if it has, or if the
    /// waiting task is cancelled: a test's time limit ends the wait).
    ///
    /// ```swift
    /// await recorder.waitForCompletion()
    /// ```
    public func waitForCompletion() async {
        await wait(forValues: nil)
    }

    /// Waits until at least `count` values have arrived, or the flow completed (or the waiting
    /// task is cancelled).
    ///
    /// ```swift
    /// await recorder.waitForValues(3)
    /// ```
    public func waitForValues(_ count: Int) async {
        await wait(forValues: count)
    }

    private func wait(forValues count: Int?) async {
        let id = state.withLock { state -> UInt64 in
            defer { state.nextWaiterID += 1 }
            return state.nextWaiterID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let done = state.withLock { state -> Bool in
                    if state.isCompleted || (count ?? .max) <= state.valueCount || Task.isCancelled { return true }
                    state.waiters[id] = (count, continuation)
                    return false
                }
                if done { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
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
