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
/// An event sent before the call (or by a task the test has waited for) has been delivered
/// when it returns, and main-actor jobs enqueued before it have run. Not covered: what those
/// blocks enqueue as they run (a second hop needs a second wait), an event sent later by
/// another task (a timer woken by `ManualClock.advance(by:)`: wait with a ``FlowRecorder``),
/// and, from a nonisolated test, an event arriving while a delivery block runs. See
/// <doc:AsyncBridgeTesting#Waiting-for-the-main-queue>.
///
/// Suspends (never blocks the main thread), so it works from a `@MainActor` test too. Returns
/// early if the waiting task is cancelled (a test's time limit).
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
/// On a concurrent queue of yours it waits until those blocks have finished (a barrier); the
/// global queues ignore barriers, so there it waits only until they have started.
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
