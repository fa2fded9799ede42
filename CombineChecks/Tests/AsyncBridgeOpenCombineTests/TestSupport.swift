import AsyncBridge
import Dispatch
import Foundation
import OpenCombine

/// A failure type for tests.
struct TestError: Error, Equatable {
    var code = 1
}

/// A value guarded by a lock, usable from any thread.
///
/// Unchecked: `value` is only touched while `lock` is held.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }

    var current: Value { withLock { $0 } }
}

/// A counter callable from any thread.
final class Counter: Sendable {
    private let count = Locked(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.current }
}

/// An object whose lifetime tests watch through a weak reference.
final class Tracked: Sendable {}

/// A Combine subscriber that records what it receives and demands only what the test asks for
/// (`request`), plus what `demandPerValue` returns from each `receive(_:)`.
///
/// It holds its subscription until it completes or cancels, as Combine's own subscribers do,
/// and counts calls that overlap (two threads inside it at once): the Rx grammar forbids them.
final class DemandRecorder<Input: Sendable, Failure: Error>: Subscriber, @unchecked Sendable {
    private struct State {
        var subscription: (any Subscription)?
        var events: [FlowEvent<Input, Failure>] = []
        var subscriptions = 0
        var inside = 0
        var overlaps = 0
        var afterCompletion = 0
        var isCompleted = false
    }

    private let state = Locked(State())
    private let initialDemand: Subscribers.Demand
    private let demandPerValue: @Sendable (Input) -> Subscribers.Demand
    private let onEvent: @Sendable (DemandRecorder, FlowEvent<Input, Failure>) -> Void
    /// Signalled once, when the completion arrives.
    let completed = DispatchSemaphore(value: 0)
    /// The subscription it received, watched weakly (a leak check).
    private(set) weak var watchedSubscription: AnyObject?

    init(
        initialDemand: Subscribers.Demand = .none,
        demandPerValue: @escaping @Sendable (Input) -> Subscribers.Demand = { _ in .none },
        onEvent: @escaping @Sendable (DemandRecorder, FlowEvent<Input, Failure>) -> Void = { _, _ in }
    ) {
        self.initialDemand = initialDemand
        self.demandPerValue = demandPerValue
        self.onEvent = onEvent
    }

    var events: [FlowEvent<Input, Failure>] { state.withLock { $0.events } }
    var values: [Input] {
        events.compactMap { if case .value(let value) = $0 { value } else { nil } }
    }
    var overlaps: Int { state.withLock { $0.overlaps } }
    var subscriptions: Int { state.withLock { $0.subscriptions } }
    var eventsAfterCompletion: Int { state.withLock { $0.afterCompletion } }
    var isHoldingSubscription: Bool { state.withLock { $0.subscription != nil } }

    func request(_ demand: Subscribers.Demand) {
        state.withLock { $0.subscription }?.request(demand)
    }

    /// Cancels and lets the subscription go.
    func cancel() {
        let subscription = state.withLock { state -> (any Subscription)? in
            defer { state.subscription = nil }
            return state.subscription
        }
        subscription?.cancel()
    }

    func receive(subscription: any Subscription) {
        watchedSubscription = subscription as AnyObject
        state.withLock {
            $0.subscription = subscription
            $0.subscriptions += 1
        }
        if initialDemand > .none { subscription.request(initialDemand) }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        enter(.value(input))
        defer { leave() }
        onEvent(self, .value(input))
        return demandPerValue(input)
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        let event: FlowEvent<Input, Failure> = switch completion {
        case .finished: .finished
        case .failure(let error): .failure(error)
        }
        enter(event)
        let subscription = state.withLock { state -> (any Subscription)? in
            defer { state.subscription = nil }
            return state.subscription
        }
        withExtendedLifetime(subscription) {}
        onEvent(self, event)
        leave()
        completed.signal()
    }

    private func enter(_ event: FlowEvent<Input, Failure>) {
        state.withLock { state in
            if state.isCompleted { state.afterCompletion += 1 }
            if case .value = event {} else { state.isCompleted = true }
            state.inside += 1
            if state.inside > 1 { state.overlaps += 1 }
            state.events.append(event)
        }
    }

    private func leave() {
        state.withLock { $0.inside -= 1 }
    }
}

/// A publisher the test drives by hand: it counts the demand and cancellations of the
/// subscriptions it makes, and sends to its latest subscriber when the test says so. The
/// subscription holds the subscriber until it is cancelled or completes, as Combine's do; the
/// publisher holds both only weakly, so that tests can watch them go.
final class ManualPublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
    final class ManualSubscription: Subscription, @unchecked Sendable {
        let subscriber = Locked<AnySubscriber<Output, Failure>?>(nil)
        fileprivate let requests: Locked<[Subscribers.Demand]>
        fileprivate let cancels: Counter

        fileprivate init(requests: Locked<[Subscribers.Demand]>, cancels: Counter) {
            self.requests = requests
            self.cancels = cancels
        }

        func request(_ demand: Subscribers.Demand) {
            requests.withLock { $0.append(demand) }
        }

        func cancel() {
            cancels.increment()
            let subscriber = self.subscriber.withLock { subscriber in
                defer { subscriber = nil }
                return subscriber
            }
            withExtendedLifetime(subscriber) {}
        }
    }

    private let requestLog = Locked<[Subscribers.Demand]>([])
    private let cancelCount = Counter()
    private let subscriptionCount = Counter()
    private let latest = Locked<(subscription: Weak<ManualSubscription>, subscriber: Weak<AnyObject>)>((Weak(nil), Weak(nil)))

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let subscription = ManualSubscription(requests: requestLog, cancels: cancelCount)
        subscription.subscriber.withLock { $0 = AnySubscriber(subscriber) }
        latest.withLock { $0 = (Weak(subscription), Weak(subscriber as AnyObject)) }
        subscriptionCount.increment()
        if handsSubscriptionOverLater {
            pendingHandOver.withLock { $0 = { subscriber.receive(subscription: subscription) } }
        } else {
            subscriber.receive(subscription: subscription)
        }
    }

    /// Whether `receive(subscriber:)` returns before handing the subscription over (as a
    /// publisher behind `subscribe(on:)` does); `handOverSubscription()` does it.
    var handsSubscriptionOverLater = false
    private let pendingHandOver = Locked<(() -> Void)?>(nil)

    /// Hands the subscription over to the subscriber that is waiting for it.
    func handOverSubscription() {
        let handOver = pendingHandOver.withLock { pending in
            defer { pending = nil }
            return pending
        }
        handOver?()
    }

    /// How many subscribers it has had.
    var subscriptions: Int { subscriptionCount.value }
    /// Every demand requested, in order.
    var requests: [Subscribers.Demand] { requestLog.current }
    /// How often a subscription was cancelled.
    var cancels: Int { cancelCount.value }
    /// The latest subscription, while something holds it.
    var subscription: ManualSubscription? { latest.withLock { $0.subscription.object } }
    /// The latest subscriber, while something holds it.
    var subscriber: AnyObject? { latest.withLock { $0.subscriber.object } }

    /// Sends to the latest subscriber, whatever its demand (the test decides); returns the
    /// demand it gives back.
    @discardableResult
    func send(_ value: Output) -> Subscribers.Demand {
        subscription?.subscriber.current?.receive(value) ?? .none
    }

    /// Whether completing lets the subscriber go (Combine's own publishers do; a publisher
    /// that does not relies on its subscriber to let the subscription go).
    private let releasesSubscriberOnCompletion: Bool

    init(releasesSubscriberOnCompletion: Bool = true) {
        self.releasesSubscriberOnCompletion = releasesSubscriberOnCompletion
    }

    /// Completes, and lets the subscriber go (if it does).
    func send(completion: Subscribers.Completion<Failure>) {
        let release = releasesSubscriberOnCompletion
        let subscriber = subscription?.subscriber.withLock { subscriber in
            defer { if release { subscriber = nil } }
            return subscriber
        }
        subscriber?.receive(completion: completion)
    }
}

/// A weak reference, as a value.
struct Weak<Object: AnyObject> {
    weak var object: Object?
    init(_ object: Object?) { self.object = object }
}

/// Waits for `semaphore` for up to ten seconds: a deadlock detector, not a synchroniser.
func waitedInTime(_ semaphore: DispatchSemaphore) -> Bool {
    semaphore.wait(timeout: .now() + 10) == .success
}
