@_spi(AsyncBridgeInternals) import AsyncBridge
import Dispatch

/// Waits until the main queue has run every block enqueued on it before the call: how a test
/// knows that what it sent through `receive(on: MainActor.shared)`, `driver()`,
/// `receive(on: .main)` or `MainActorFlow.observing` has been delivered, without sleeping.
///
/// ```swift
/// @MainActor @Test func theTitleFollowsTheName() async {
///     let names = LiveSubject<String, Never>()
///     let viewModel = TitleViewModel(titles: names.flow)
///     names.send("Ada")
///     await waitForMainQueue()
///     #expect(viewModel.title == "Ada")
/// }
/// ```
///
/// Each of those hops hands an event to the main queue when the event arrives, so an event
/// sent before the call (from the test, or from a task or thread the test has waited for) is
/// delivered when it returns, with one exception: an event that arrives while one of the hop's
/// delivery blocks is running waits for a block that one enqueues as it ends, after this
/// wait's. A test on the main actor never meets it (no main-queue block runs while the test
/// does); a nonisolated one sends before the hop starts delivering, or waits for a
/// ``FlowRecorder``'s count. The main actor runs on the main queue, so main-actor jobs
/// enqueued before the call, such as a `Task { @MainActor in … }` up to its first suspension,
/// have run too. What those blocks enqueue as they run comes after, and needs another call:
/// a second hop (`.flow.receive(on: MainActor.shared)`, `MainActorFlow.observing` followed by
/// `flatMapLatest` and a hop), or a handler that sends into its own source. An event sent later
/// by another task, such as an operator's timer woken by `ManualClock.advance(by:)`, is not
/// covered: wait for it with a ``FlowRecorder`` first.
///
/// The caller suspends, so it works from a `@MainActor` test as from a nonisolated one (the
/// main thread is never blocked). Returns early if the waiting task is cancelled (a test's
/// time limit ends the wait).
///
/// In RxSwift and Combine tests, the same wait is usually an `XCTestExpectation` fulfilled in
/// the handler.
public func waitForMainQueue() async {
    await waitForBlocks(on: .main, flags: [])
}

/// Waits until `queue` has run every block enqueued on it before the call: what a test awaits
/// before it looks at what `receive(on: queue)` delivered. ``waitForMainQueue()`` for any
/// queue, with the same rules.
///
/// ```swift
/// let queue = DispatchQueue(label: "parser")
/// let recorder = FlowRecorder(subject.flow.receive(on: queue))
/// subject.send("a")
/// await waitForQueue(queue)
/// #expect(recorder.events == marbles("a"))
/// ```
///
/// On a concurrent queue that you created, it waits until those blocks have finished (it
/// enqueues a barrier). The global queues ignore barriers: there it waits only until those
/// blocks have started.
public func waitForQueue(_ queue: DispatchQueue) async {
    await waitForBlocks(on: queue, flags: .barrier)
}

/// Enqueues a block on `queue` that resumes the caller; a cancellation resumes it first.
private func waitForBlocks(on queue: DispatchQueue, flags: DispatchWorkItemFlags) async {
    let waiter = SharedLock<CheckedContinuation<Void, Never>?>(nil)
    let resume: @Sendable () -> Void = {
        waiter.withLock { waiting in
            defer { waiting = nil }
            return waiting
        }?.resume()
    }
    await withTaskCancellationHandler {
        await withCheckedContinuation { continuation in
            waiter.withLock { $0 = continuation }
            // A cancellation that came before the continuation was stored found nothing.
            if Task.isCancelled { resume() }
            queue.async(flags: flags, execute: resume)
        }
    } onCancel: {
        resume()
    }
}
