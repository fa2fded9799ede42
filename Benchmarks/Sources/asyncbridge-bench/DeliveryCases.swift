import AsyncBridge
import Dispatch
import OpenCombine
import OpenCombineDispatch

/// Delivery to the main queue: `receive-main`, `receive-main-actor`, `receive-main-lifecycle`,
/// and `subject-lifecycle`, the last without the hop (what the subjects alone cost of it).
///
/// The benchmark's thread (a thread of the cooperative pool, never the main thread) sends;
/// the main thread, which runs `dispatchMain()` (see `main.swift`), delivers. The body waits on
/// a semaphore that the handler signals, so the time includes every delivery.
let deliveryCases: [BenchmarkCase] = [
    BenchmarkCase(
        id: "receive-main",
        peer: "OpenCombine receive(on: DispatchQueue.main)",
        ratio: .speedup(atLeast: nil),
        allocations: .counted,
        ours: flowReceiveOnMain,
        peerBody: openCombineReceiveOnMain
    ),
    BenchmarkCase(
        id: "receive-main-actor",
        peer: "OpenCombine receive(on: DispatchQueue.main)",
        ratio: .speedup(atLeast: nil),
        allocations: .counted,
        ours: flowReceiveOnMainActor,
        peerBody: openCombineReceiveOnMain
    ),
    BenchmarkCase(
        id: "receive-main-lifecycle",
        peer: "OpenCombine receive(on: DispatchQueue.main)",
        ratio: .speedup(atLeast: nil),
        allocations: .counted,
        ours: flowReceiveOnMainLifecycle,
        peerBody: openCombineReceiveOnMainLifecycle
    ),
    BenchmarkCase(
        id: "subject-lifecycle",
        peer: "OpenCombine PassthroughSubject",
        ratio: .speedup(atLeast: nil),
        allocations: .counted,
        ours: subjectLifecycle,
        peerBody: openCombineSubjectLifecycle
    ),
]

/// `opaque` for a main-actor handler (an overload cannot differ by global actor alone).
@inline(never) @_optimize(none)
func opaqueMainActor(_ sink: @escaping @MainActor @Sendable (Int) -> Void) -> @MainActor @Sendable (Int) -> Void { sink }

// MARK: receive-main, receive-main-actor

/// `iterations` sends into a subject from this thread, delivered on the main queue by
/// `receive(on: .main)`; the time ends when the main queue has delivered the last one.
func flowReceiveOnMain(_ iterations: Int) async throws {
    let count = opaque(iterations)
    guard count > 0 else { return }
    let last = count - 1
    let received = DispatchSemaphore(value: 0)
    let subject = LiveSubject<Int, Never>()
    let token = subject.flow
        .receive(on: .main)
        .subscribe(onValue: opaque { value in
            blackHole(value)
            if value == last { received.signal() }
        }, onCompletion: { _ in })
    for value in 0..<count { subject.send(value) }
    received.wait()
    token.cancel()
}

/// The same through `receive(on: MainActor.shared)`, to a main-actor handler.
func flowReceiveOnMainActor(_ iterations: Int) async throws {
    let count = opaque(iterations)
    guard count > 0 else { return }
    let last = count - 1
    let received = DispatchSemaphore(value: 0)
    let subject = LiveSubject<Int, Never>()
    let handler = opaqueMainActor { value in
        blackHole(value)
        if value == last { received.signal() }
    }
    let onMain = subject.flow.receive(on: MainActor.shared)
    // A MainActorFlow is subscribed on the main actor (once per run: outside the per-value cost).
    let token = await MainActor.run { onMain.subscribe(onValue: handler, onCompletion: { _ in }) }
    for value in 0..<count { subject.send(value) }
    received.wait()
    token.cancel()
}

/// The same through OpenCombine's `PassthroughSubject` and `receive(on:)` with
/// OpenCombineDispatch's main-queue scheduler, `DispatchQueue.OCombine(.main)`.
func openCombineReceiveOnMain(_ iterations: Int) async throws {
    let count = opaque(iterations)
    guard count > 0 else { return }
    let last = count - 1
    let received = DispatchSemaphore(value: 0)
    let subject = PassthroughSubject<Int, Never>()
    let cancellable = subject
        .receive(on: DispatchQueue.OCombine(.main))
        .sink(receiveValue: opaque { value in
            blackHole(value)
            if value == last { received.signal() }
        })
    for value in 0..<count { subject.send(value) }
    received.wait()
    cancellable.cancel()
}

// MARK: receive-main-lifecycle

/// `iterations` subscriptions, each: subscribe through `receive(on: .main)`, send one value,
/// wait until the main queue delivered it, cancel.
func flowReceiveOnMainLifecycle(_ iterations: Int) async throws {
    let received = DispatchSemaphore(value: 0)
    let subject = LiveSubject<Int, Never>()
    let sink = opaque { (value: Int) -> Void in
        blackHole(value)
        received.signal()
    }
    for value in 0..<opaque(iterations) {
        let token = subject.flow.receive(on: .main).subscribe(onValue: sink, onCompletion: { _ in })
        subject.send(value)
        received.wait()
        token.cancel()
    }
}

/// The same with OpenCombine: `sink` on `receive(on:)` per subscription.
func openCombineReceiveOnMainLifecycle(_ iterations: Int) async throws {
    let received = DispatchSemaphore(value: 0)
    let subject = PassthroughSubject<Int, Never>()
    let sink = opaque { (value: Int) -> Void in
        blackHole(value)
        received.signal()
    }
    for value in 0..<opaque(iterations) {
        let cancellable = subject.receive(on: DispatchQueue.OCombine(.main)).sink(receiveValue: sink)
        subject.send(value)
        received.wait()
        cancellable.cancel()
    }
}

// MARK: subject-lifecycle

/// `receive-main-lifecycle` without the hop: `iterations` subscriptions to a subject, each
/// sent one value (delivered synchronously) and cancelled.
func subjectLifecycle(_ iterations: Int) async throws {
    let subject = LiveSubject<Int, Never>()
    let sink = opaque { (value: Int) -> Void in blackHole(value) }
    for value in 0..<opaque(iterations) {
        let token = subject.flow.subscribe(onValue: sink, onCompletion: { _ in })
        subject.send(value)
        token.cancel()
    }
}

func openCombineSubjectLifecycle(_ iterations: Int) async throws {
    let subject = PassthroughSubject<Int, Never>()
    let sink = opaque { (value: Int) -> Void in blackHole(value) }
    for value in 0..<opaque(iterations) {
        let cancellable = subject.sink(receiveValue: sink)
        subject.send(value)
        cancellable.cancel()
    }
}
