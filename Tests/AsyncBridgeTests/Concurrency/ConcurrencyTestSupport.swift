import Dispatch
@_spi(AsyncBridgeInternals) import AsyncBridge

/// Lets tasks wait until `count` arrivals have happened (subscriptions, consumers ready). A
/// waiting task that is cancelled (the test's time limit) stops waiting, so a hung test ends.
final class Countdown: Sendable {
    private struct State {
        var remaining: Int
        var nextID = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var cancelledEarly: Set<Int> = []
    }

    private let state: SharedLock<State>

    init(_ count: Int) {
        state = SharedLock(State(remaining: count))
    }

    func arrive() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.remaining -= 1
            guard state.remaining <= 0 else { return [] }
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let done = state.withLock { state -> Bool in
                    if state.remaining <= 0 || state.cancelledEarly.remove(id) != nil { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if done { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let waiter = state.waiters.removeValue(forKey: id) else {
                    state.cancelledEarly.insert(id)
                    return nil
                }
                return waiter
            }
            waiter?.resume()
        }
    }
}

/// Values collected from any thread, in the order they arrived.
final class Collected<Value: Sendable>: Sendable {
    private let values = SharedLock<[Value]>([])
    func append(_ value: Value) { values.withLock { $0.append(value) } }
    var all: [Value] { values.withLock { $0 } }
}

/// Runs `body` on a thread that runs no Swift task: a fresh serial queue.
func onPlainThread(_ label: String = "producer", _ body: @escaping @Sendable () -> Void) {
    DispatchQueue(label: label).async(execute: body)
}

/// Runs `body` with the current task already cancelled.
func cancellingCurrentTask() {
    withUnsafeCurrentTask { $0?.cancel() }
}

/// A cold flow whose latest subscription the test drives by hand, and which tells when it has
/// been subscribed and how often it was cancelled.
final class ManualSource<Element: Sendable>: Sendable {
    let cancels = AtomicCounter()
    let subscriptions = AtomicCounter()
    private let emitter = Box<FlowEmitter<Element, TestError>?>(nil)
    private let subscribedGate = Countdown(1)

    var flow: Flow<Element, TestError> {
        Flow.create { [emitter, cancels, subscriptions, subscribedGate] sink in
            emitter.value = sink
            subscriptions.increment()
            subscribedGate.arrive()
            sink.onCancel { cancels.increment() }
        }
    }

    /// Waits until the flow has been subscribed (returns at once if it has).
    func subscribed() async { await subscribedGate.wait() }

    func send(_ value: Element) { emitter.value?.send(value) }
    func finish() { emitter.value?.finish() }
    func fail(_ error: TestError = TestError()) { emitter.value?.fail(error) }
}

/// Counts its deinitialisations: how tests see that a buffer released what it held.
final class Counted: Sendable {
    let deaths: AtomicCounter
    init(_ deaths: AtomicCounter) { self.deaths = deaths }
    deinit { deaths.increment() }
}
