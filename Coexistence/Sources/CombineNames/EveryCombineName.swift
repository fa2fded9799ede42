// Every public type name of Combine (compiled against OpenCombine, Combine's API on Linux),
// written unqualified in a file that also imports AsyncBridge and uses its types: if AsyncBridge
// declared one of these names, the reference would be ambiguous and this target would not build.
// .ci/check-public-names checks that each name of .ci/public-names/Combine.txt appears here.

import AsyncBridge
import AsyncBridgeFoundation
import Foundation
import OpenCombine

typealias CombineAnyCancellable = AnyCancellable
typealias CombineAnyPublisher = AnyPublisher<Int, Never>
typealias CombineAnySubscriber = AnySubscriber<Int, Never>
typealias CombineAsyncPublisher = AsyncPublisher<Just<Int>>
typealias CombineAsyncThrowingPublisher = AsyncThrowingPublisher<Fail<Int, any Error>>
typealias CombineCancellable = any Cancellable
typealias CombineCombineIdentifier = CombineIdentifier
typealias CombineConnectablePublisher = any ConnectablePublisher
typealias CombineCurrentValueSubject = CurrentValueSubject<Int, Never>
typealias CombineCustomCombineIdentifierConvertible = any CustomCombineIdentifierConvertible
typealias CombineDeferred = Deferred<Just<Int>>
typealias CombineEmpty = Empty<Int, Never>
typealias CombineFail = Fail<Int, any Error>
typealias CombineFuture = Future<Int, Never>
typealias CombineImmediateScheduler = ImmediateScheduler
typealias CombineJust = Just<Int>
typealias CombineObservableObject = any ObservableObject
typealias CombineObservableObjectPublisher = ObservableObjectPublisher
typealias CombinePassthroughSubject = PassthroughSubject<Int, Never>
typealias CombinePublished = Published<Int>
typealias CombinePublisher = any Publisher
typealias CombinePublishers = Publishers.Map<Just<Int>, String>
typealias CombineRecord = Record<Int, Never>
typealias CombineScheduler = any Scheduler
typealias CombineSchedulerTimeIntervalConvertible = any SchedulerTimeIntervalConvertible
typealias CombineSubject = any Subject
typealias CombineSubscriber = any Subscriber
typealias CombineSubscribers = Subscribers.Completion<Never>
typealias CombineSubscription = any Subscription
typealias CombineSubscriptions = Subscriptions
typealias CombineTopLevelDecoder = any TopLevelDecoder
typealias CombineTopLevelEncoder = any TopLevelEncoder

// AsyncBridge beside them, unqualified too: the renamed types, and code that mixes both.
typealias OurFuture = SharedFuture<Int, Never>
typealias OurSubjects = (LiveSubject<Int, Never>, LatestValueSubject<Int, Never>, ReplayingSubject<Int, Never>)
typealias OurRelays = (LiveRelay<Int>, LatestValueRelay<Int>, ReplayingRelay<Int>)
typealias OurHandles = (CancellationToken, CancellationBag, Flow<Int, Never>)

/// A model in the middle of a migration: Combine's subjects and futures beside AsyncBridge's.
final class HalfMigratedModel: ObservableObject {
    @Published var count = 0
    var cancellables = Set<AnyCancellable>()
    let bag = CancellationBag()
    let names = PassthroughSubject<String, Never>()
    let latest = CurrentValueSubject<Int, Never>(0)
    let liveNames = LiveSubject<String, Never>()
    let latestCount = LatestValueSubject<Int, Never>(value: 0)

    func start() {
        Future<Int, Never> { promise in promise(.success(1)) }
            .sink { [weak self] in self?.count = $0 }
            .store(in: &cancellables)
        Just(2).map { $0 + 1 }.sink { print($0) }.store(in: &cancellables)
        names.sink { print($0) }.store(in: &cancellables)
        liveNames.flow.subscribe(onValue: { print($0) }, onCompletion: { _ in }).store(in: bag)
        NotificationCenter.default.flow(for: .init("ping")).subscribe { _ in print("ping") }.store(in: bag)
        _ = SharedFuture<Int, Never> { completion in completion(.success(3)) }
            .subscribe(deliveringOn: nil) { print($0) }
    }
}
