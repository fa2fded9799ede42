@_spi(AsyncBridgeInternals) import AsyncBridge
import AsyncBridgeTesting
import Dispatch

/// A failure type for tests.
struct TestError: Error, Equatable {
    var code = 1
}

/// A counter callable from any thread.
final class AtomicCounter: Sendable {
    private let count = SharedLock(0)
    func increment() { count.withLock { $0 += 1 } }
    func decrement() { count.withLock { $0 -= 1 } }
    var value: Int { count.withLock { $0 } }
}

/// A value callable from any thread.
final class Box<Value: Sendable>: Sendable {
    private let stored: SharedLock<Value>
    init(_ value: Value) { stored = SharedLock(value) }
    var value: Value {
        get { stored.withLock { $0 } }
        set { stored.withLock { $0 = newValue } }
    }
    /// Changes the value in one step: `box.value.append(x)` is a read, then a write, and two
    /// threads doing it at once lose one of the appends.
    func mutate<Result>(_ body: (inout Value) -> Result) -> Result {
        stored.withLock(body)
    }
    func take() -> Value where Value: ExpressibleByNilLiteral {
        stored.withLock { value in
            defer { value = nil }
            return value
        }
    }
}

/// What a `MisuseRecorder` sees of `misuses`: all of them in debug builds, none in release
/// builds, which do not report misuse (`.ci/run` runs the tests in both).
func reported(_ misuses: [Misuse]) -> [Misuse] {
    #if DEBUG
    return misuses
    #else
    return []
    #endif
}

/// What a report of `misuse` made by `bridge`, created at `line` of the calling file, says: in
/// debug builds; release builds report nothing.
struct ExpectedReport: Equatable, CustomStringConvertible {
    var misuse: Misuse
    var bridge: String
    var fileID: String
    var line: Int
    var outcome: String

    init(_ misuse: Misuse, _ bridge: String, line: Int, _ outcome: String, fileID: String = #fileID) {
        self.misuse = misuse
        self.bridge = bridge
        self.fileID = fileID
        self.line = line
        self.outcome = outcome
    }

    init(_ report: MisuseReport) {
        self.init(report.misuse, report.bridge, line: report.line, report.outcome, fileID: report.fileID)
    }

    var description: String { "\(bridge) at \(fileID):\(line): \(misuse); \(outcome)" }
}

extension MisuseRecorder {
    /// The reports, to compare with `reported(_:)` of the expected ones.
    var expectable: [ExpectedReport] { reports.map(ExpectedReport.init) }
}

/// What a `MisuseRecorder`'s `expectable` reports are: all of them in debug builds, none in
/// release builds.
func reported(_ reports: [ExpectedReport]) -> [ExpectedReport] {
    #if DEBUG
    return reports
    #else
    return []
    #endif
}

/// The outcome a report gives for a flow that a dropped block ended.
let flowFailedBroken = "the flow failed with AsyncBridgeError.completionNeverCalled"
func flowFinished(_ failure: String) -> String {
    "the flow finished without a value: its Failure type, \(failure), cannot carry AsyncBridgeError.completionNeverCalled"
}

/// Waits for `semaphore` on a thread of its own, leaving the test's task free.
func wait(for semaphore: DispatchSemaphore) async {
    await withCheckedContinuation { done in
        DispatchQueue(label: "wait(for:)").async {
            semaphore.wait()
            done.resume()
        }
    }
}

/// An object whose lifetime tests watch through a weak reference.
final class Tracked: Sendable {}

/// A stand-in for a callback API that keeps the completion block until the test calls it,
/// and counts how often its operation was started and cancelled.
final class PendingOperation<Value: Sendable>: Sendable {
    private struct State {
        var starts = 0
        var cancels = 0
        var completion: (@Sendable (Value) -> Void)?
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = SharedLock(State())

    var starts: Int { state.withLock { $0.starts } }
    var cancels: Int { state.withLock { $0.cancels } }
    var isHoldingCompletion: Bool { state.withLock { $0.completion != nil } }

    /// The operation: keeps `completion` and wakes whoever waits in `waitUntilStarted`.
    func start(_ completion: @escaping @Sendable (Value) -> Void) {
        let waiters = state.withLock { state in
            state.starts += 1
            state.completion = completion
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// The cancel action: drops the completion block, as a cancelled task does.
    func cancel() {
        state.withLock { state in
            state.cancels += 1
            state.completion = nil
        }
    }

    /// Calls the kept completion block, if any; returns whether there was one.
    @discardableResult
    func complete(_ value: Value) -> Bool {
        guard let completion = state.withLock({ $0.completion }) else { return false }
        completion(value)
        return true
    }

    /// Releases the kept completion block without calling it.
    func drop() { state.withLock { $0.completion = nil } }

    /// Waits until `start` has been called (returns at once if it has).
    func waitUntilStarted() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let started = state.withLock { state -> Bool in
                if state.starts > 0 { return true }
                state.waiters.append(continuation)
                return false
            }
            if started { continuation.resume() }
        }
    }
}

/// Suspends the calling task until it is cancelled, whichever comes first of the
/// cancellation and the suspension, and counts the cancellations it saw.
final class CancellationGate: Sendable {
    private struct State {
        var cancelled = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = SharedLock(State())
    /// Called once the task is suspended here, so a test knows the operation is in flight.
    let suspended = CompletionSpy<Void>()
    /// Called when the cancellation arrives.
    let sawCancellation = CompletionSpy<Void>()

    func waitForCancellation() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let alreadyCancelled = state.withLock { state -> Bool in
                    if state.cancelled { return true }
                    state.waiter = continuation
                    return false
                }
                suspended.record(())
                if alreadyCancelled { continuation.resume() }
            }
        } onCancel: {
            sawCancellation.record(())
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                state.cancelled = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }
}

/// Whether the caller runs on the main queue (the main actor's executor here): a key set on the
/// main queue, found only there.
func isOnMainQueue() -> Bool {
    DispatchQueue.getSpecific(key: mainQueueKey.key) == true
}

private struct MainQueueKey: @unchecked Sendable {  // only handed to Dispatch, which is thread-safe
    let key = DispatchSpecificKey<Bool>()
}

private let mainQueueKey: MainQueueKey = {
    let key = MainQueueKey()
    DispatchQueue.main.setSpecific(key: key.key, value: true)
    return key
}()
