import AsyncBridge
import AsyncBridgeFoundation
import Dispatch
import Foundation
import Observation

/// What apps already have, observed: an `@Observable` model's property (`observation-*`) and
/// notifications (`notification-*`), each against the peer an app would use otherwise.
///
/// - `observation-change`: per change delivered to a `for await` loop already iterating. A
///   serial `DispatchQueue(label:)` (the model's writer) makes the change; the consumer awaits
///   the new value, checks it is exactly the next one (so no change is coalesced with another,
///   on either side), then asks for the next change. Ours: `Flow.observing { model.value }
///   .values`; the peer: `Observations { model.value }` (SE-0475).
/// - `observation-change-same-task`: the same, the consumer making each change itself before
///   awaiting it (a model changed by the code that observes it).
/// - `observation-subscription`: per subscription: make the sequence and its iterator, take the
///   first (current) value, end the iterator, then change the model once, which drops the
///   registrations the ended iteration left in the model's registrar (both sides leave theirs
///   there until the next change).
/// - `observation-tracking-loop`: per change delivered to a handler. Ours: `Flow.observing
///   { model.value }.subscribe(onValue:)`; the peer: the loop people write by hand, a
///   `withObservationTracking` whose `onChange` re-reads (and re-registers) in a
///   `DispatchQueue.global().async` block, the hop ours makes too. The benchmark's thread
///   makes each change and waits on a semaphore that the handler signals.
/// - `notification-post`, `notification-subscription`: `NotificationCenter.flow(for:_:)`
///   (AsyncBridgeFoundation) subscribed with a handler against Foundation's block observer
///   `addObserver(forName:object:queue: nil, using:)`, the same extraction of a value from
///   `userInfo` on both sides; per post delivered, and per subscription (subscribe and cancel,
///   against `addObserver` and `removeObserver`).
///
/// The model is one that may be changed from any thread, as `Flow.observing` requires: every
/// access and every whole mutation under one lock (as `SharedCounter` in the tests). Both sides
/// read the same model the same way.
let observationCases: [BenchmarkCase] = [
    BenchmarkCase(
        id: "observation-change",
        peer: "Observations (SE-0475)",
        ratio: .speedup(atLeast: nil),
        allocations: .counted,
        ours: { iterations in
            guard #available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, *) else { throw ObservationsUnavailable() }
            try await flowObservingChange(iterations, changedBy: .writerQueue)
        },
        peerBody: { iterations in
            guard #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) else { throw ObservationsUnavailable() }
            try await observationsChange(iterations, changedBy: .writerQueue)
        }
    ),
    BenchmarkCase(
        id: "observation-change-same-task",
        peer: "Observations (SE-0475)",
        ratio: .speedup(atLeast: nil),
        allocations: .counted,
        ours: { iterations in
            guard #available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, *) else { throw ObservationsUnavailable() }
            try await flowObservingChange(iterations, changedBy: .consumer)
        },
        peerBody: { iterations in
            guard #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) else { throw ObservationsUnavailable() }
            try await observationsChange(iterations, changedBy: .consumer)
        }
    ),
    BenchmarkCase(
        id: "observation-subscription",
        peer: "Observations (SE-0475)",
        ratio: .speedup(atLeast: nil),
        allocations: .counted,
        ours: { iterations in
            guard #available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, *) else { throw ObservationsUnavailable() }
            try await flowObservingSubscription(iterations)
        },
        peerBody: { iterations in
            guard #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) else { throw ObservationsUnavailable() }
            try await observationsSubscription(iterations)
        }
    ),
    BenchmarkCase(
        id: "observation-tracking-loop",
        peer: "hand-written withObservationTracking loop",
        ratio: .speedup(atLeast: nil),
        allocations: .counted,
        ours: { iterations in
            guard #available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, *) else { throw ObservationsUnavailable() }
            try await flowObservingHandler(iterations)
        },
        peerBody: { iterations in
            guard #available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, *) else { throw ObservationsUnavailable() }
            try await trackingLoopHandler(iterations)
        }
    ),
    BenchmarkCase(
        id: "notification-post",
        peer: "NotificationCenter.addObserver(forName:)",
        ratio: .speedup(atLeast: nil),
        allocations: .counted,
        ours: notificationFlowPost,
        peerBody: notificationObserverPost
    ),
    BenchmarkCase(
        id: "notification-subscription",
        peer: "NotificationCenter.addObserver(forName:)",
        ratio: .speedup(atLeast: nil),
        allocations: .counted,
        ours: notificationFlowSubscription,
        peerBody: notificationObserverSubscription
    ),
]

// MARK: The model

/// An `@Observable` model that may be changed from any thread: every access and every whole
/// mutation (`willSet`, the write, `didSet`) under one lock, as `withMutation(keyPath:)` inside
/// the lock. What the `@Observable` macro generates, plus the lock.
@available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, *)
final class ObservedCounter: Observable, @unchecked Sendable {
    // Unchecked: `stored` is only read and written under `lock`.
    private let registrar = ObservationRegistrar()
    private let lock = NSLock()
    private var stored = 0

    var value: Int {
        lock.withLock {
            registrar.access(self, keyPath: \.value)
            return stored
        }
    }

    func increment() {
        lock.withLock { registrar.withMutation(of: self, keyPath: \.value) { stored += 1 } }
    }
}

/// A value that was not the one expected: a change was lost or coalesced, and the case fails.
struct ObservedWrongValue: Error, CustomStringConvertible {
    let side: String
    let value: Int?
    let expected: Int
    var description: String {
        "\(side): observed \(value.map(String.init) ?? "the end") where \(expected) was expected"
    }
}

/// Observation needs macOS 14 / iOS 17, `Observations` macOS 26 / iOS 26 (no such bound on
/// Linux, where these figures come from).
struct ObservationsUnavailable: Error, CustomStringConvertible {
    var description: String { "Observation needs macOS 14 or iOS 17, Observations macOS 26 or iOS 26" }
}

/// Who makes each change in `observation-change*`.
enum Changer {
    /// A serial queue, the model's writer: `async { model.increment() }`, per change.
    case writerQueue
    /// The consumer itself, just before awaiting the change.
    case consumer
}

/// The writer of `observation-change`; serial, so changes come one at a time.
let observationWriter = DispatchQueue(label: "asyncbridge-bench.observation-writer")

@available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, *)
@inline(__always)
func change(_ model: ObservedCounter, by changer: Changer) {
    switch changer {
    case .writerQueue: observationWriter.async { model.increment() }
    case .consumer: model.increment()
    }
}

// MARK: observation-change, observation-change-same-task

/// `iterations` changes, each awaited by a `for await`-style iteration of
/// `Flow.observing { model.value }.values` before the next is made.
@available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, *)
func flowObservingChange(_ iterations: Int, changedBy changer: Changer) async throws {
    let model = ObservedCounter()
    var values = Flow.observing { model.value }.values.makeAsyncIterator()
    guard let first = await values.next(), first == 0 else { throw ObservedWrongValue(side: "Flow.observing", value: nil, expected: 0) }
    for expected in 1..<(opaque(iterations) + 1) {
        change(model, by: changer)
        let value = await values.next()
        guard value == expected else { throw ObservedWrongValue(side: "Flow.observing", value: value, expected: expected) }
        blackHole(expected)
    }
}

/// The same with `Observations { model.value }`.
@available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *)
func observationsChange(_ iterations: Int, changedBy changer: Changer) async throws {
    let model = ObservedCounter()
    var values = Observations { model.value }.makeAsyncIterator()
    guard let first = await values.next(), first == 0 else { throw ObservedWrongValue(side: "Observations", value: nil, expected: 0) }
    for expected in 1..<(opaque(iterations) + 1) {
        change(model, by: changer)
        let value = await values.next()
        guard value == expected else { throw ObservedWrongValue(side: "Observations", value: value, expected: expected) }
        blackHole(expected)
    }
}

// MARK: observation-subscription

/// `iterations` subscriptions, each: `Flow.observing { model.value }.values`, its iterator
/// (which subscribes), the first value, the iterator released (which cancels), one change.
@available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, *)
func flowObservingSubscription(_ iterations: Int) async throws {
    let model = ObservedCounter()
    for expected in 0..<opaque(iterations) {
        do {
            var values = Flow.observing { model.value }.values.makeAsyncIterator()
            let value = await values.next()
            guard value == expected else { throw ObservedWrongValue(side: "Flow.observing", value: value, expected: expected) }
            blackHole(expected)
        }
        model.increment()
    }
}

/// The same with `Observations { model.value }`.
@available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *)
func observationsSubscription(_ iterations: Int) async throws {
    let model = ObservedCounter()
    for expected in 0..<opaque(iterations) {
        do {
            var values = Observations { model.value }.makeAsyncIterator()
            let value = await values.next()
            guard value == expected else { throw ObservedWrongValue(side: "Observations", value: value, expected: expected) }
            blackHole(expected)
        }
        model.increment()
    }
}

// MARK: observation-tracking-loop

/// `iterations` changes made on this thread, each delivered to a handler of
/// `Flow.observing { model.value }` before the next is made.
@available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, *)
func flowObservingHandler(_ iterations: Int) async throws {
    let model = ObservedCounter()
    let received = DispatchSemaphore(value: 0)
    let handler = opaque { (value: Int) -> Void in
        blackHole(value)
        received.signal()
    }
    let token = Flow.observing { model.value }.subscribe(onValue: handler, onCompletion: { _ in })
    received.wait()   // the current value, sent inside subscribe
    for _ in 0..<opaque(iterations) {
        model.increment()
        received.wait()
    }
    token.cancel()
}

/// The loop people write by hand: read under `withObservationTracking`, hand the value to the
/// handler; at a change (`onChange`, in the writer's `willSet`) read again, and register again,
/// in a block on a global queue, so that the value read is the one after the change. One
/// registration per read; `[weak self]` ends the loop once its owner lets go of it.
@available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, *)
final class TrackingLoop: Sendable {
    let model: ObservedCounter
    let handler: @Sendable (Int) -> Void

    init(model: ObservedCounter, handler: @escaping @Sendable (Int) -> Void) {
        self.model = model
        self.handler = handler
    }

    func observe() {
        let value = withObservationTracking { model.value } onChange: { [weak self] in
            guard let self else { return }
            DispatchQueue.global().async { self.observe() }
        }
        handler(value)
    }
}

/// The same with the hand-written loop.
@available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, *)
func trackingLoopHandler(_ iterations: Int) async throws {
    let model = ObservedCounter()
    let received = DispatchSemaphore(value: 0)
    let handler = opaque { (value: Int) -> Void in
        blackHole(value)
        received.signal()
    }
    let loop = TrackingLoop(model: model, handler: handler)
    loop.observe()
    received.wait()   // the current value
    for _ in 0..<opaque(iterations) {
        model.increment()
        received.wait()
    }
    withExtendedLifetime(loop) {}
}

// MARK: notification-post, notification-subscription

let benchTicked = Notification.Name("asyncbridge-bench.ticked")

/// The notification posted: made once, so that neither side pays for building `userInfo`.
/// Unsafe only in name: it is never mutated, and both sides only post it.
nonisolated(unsafe) let tickNotification = Notification(name: benchTicked, object: nil, userInfo: ["value": 1])

/// What both sides take from a notification, on the posting thread.
@Sendable func tickValue(_ notification: Notification) -> Int {
    notification.userInfo?["value"] as? Int ?? -1
}

/// `iterations` posts to a subscription of `center.flow(for:_:)`, each delivered to its handler.
func notificationFlowPost(_ iterations: Int) async throws {
    let center = NotificationCenter()
    let sink = opaque { (value: Int) -> Void in blackHole(value) }
    let token = center.flow(for: benchTicked, tickValue).subscribe(onValue: sink, onCompletion: { _ in })
    for _ in 0..<opaque(iterations) { center.post(tickNotification) }
    token.cancel()
}

/// The same to a block observer.
func notificationObserverPost(_ iterations: Int) async throws {
    let center = NotificationCenter()
    let sink = opaque { (value: Int) -> Void in blackHole(value) }
    let observer = center.addObserver(forName: benchTicked, object: nil, queue: nil) { sink(tickValue($0)) }
    for _ in 0..<opaque(iterations) { center.post(tickNotification) }
    center.removeObserver(observer)
}

/// `iterations` subscriptions, each: `center.flow(for:_:)` made and subscribed, then cancelled.
func notificationFlowSubscription(_ iterations: Int) async throws {
    let center = NotificationCenter()
    let sink = opaque { (value: Int) -> Void in blackHole(value) }
    for _ in 0..<opaque(iterations) {
        let token = center.flow(for: benchTicked, tickValue).subscribe(onValue: sink, onCompletion: { _ in })
        token.cancel()
    }
}

/// The same with `addObserver` and `removeObserver`.
func notificationObserverSubscription(_ iterations: Int) async throws {
    let center = NotificationCenter()
    let sink = opaque { (value: Int) -> Void in blackHole(value) }
    for _ in 0..<opaque(iterations) {
        let observer = center.addObserver(forName: benchTicked, object: nil, queue: nil) { sink(tickValue($0)) }
        center.removeObserver(observer)
    }
}
