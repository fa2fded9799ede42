// Every public type name of RxSwift, RxRelay and RxCocoa (the stand-ins), written unqualified in
// a file that also imports AsyncBridge and uses its types: if AsyncBridge declared one of these
// names, the reference would be ambiguous and this target would not build.
// .ci/check-public-names checks that each name of .ci/public-names/Rx*.txt appears here.

import AsyncBridge
import AsyncBridgeFoundation
import Foundation
@preconcurrency import RxCocoa
@preconcurrency import RxRelay
@preconcurrency import RxSwift

// RxSwift: observables, observers, events.
typealias RxObservable = Observable<Int>
typealias RxObservableType = any ObservableType
typealias RxObservableConvertibleType = any ObservableConvertibleType
typealias RxObserverType = any ObserverType
typealias RxAnyObserver = AnyObserver<Int>
typealias RxEvent = Event<Int>
typealias RxEventConvertible = any EventConvertible
typealias RxConnectableObservable = ConnectableObservable<Int>
typealias RxConnectableObservableType = any ConnectableObservableType
typealias RxGroupedObservable = GroupedObservable<String, Int>
typealias RxTakeBehavior = TakeBehavior

// RxSwift: traits.
typealias RxSingle = Single<Int>
typealias RxSingleEvent = SingleEvent<Int>
typealias RxSingleTrait = SingleTrait
typealias RxMaybe = Maybe<Int>
typealias RxMaybeEvent = MaybeEvent<Int>
typealias RxMaybeTrait = MaybeTrait
typealias RxCompletable = Completable
typealias RxCompletableEvent = CompletableEvent
typealias RxCompletableTrait = CompletableTrait
typealias RxPrimitiveSequence = PrimitiveSequence<SingleTrait, Int>
typealias RxPrimitiveSequenceType = any PrimitiveSequenceType
typealias RxInfallible = Infallible<Int>
typealias RxInfallibleEvent = InfallibleEvent<Int>
typealias RxInfallibleType = any InfallibleType

// RxSwift: subjects.
typealias RxPublishSubject = PublishSubject<Int>
typealias RxBehaviorSubject = BehaviorSubject<Int>
typealias RxReplaySubject = ReplaySubject<Int>
typealias RxAsyncSubject = AsyncSubject<Int>
typealias RxSubjectType = any SubjectType
typealias RxVariable = Variable<Int>

// RxSwift: disposables.
typealias RxDisposable = any Disposable
typealias RxCancelable = any Cancelable
typealias RxDisposables = Disposables
typealias RxDisposeBag = DisposeBag
typealias RxDisposeBase = DisposeBase
typealias RxBooleanDisposable = BooleanDisposable
typealias RxCompositeDisposable = CompositeDisposable
typealias RxRefCountDisposable = RefCountDisposable
typealias RxScheduledDisposable = ScheduledDisposable
typealias RxSerialDisposable = SerialDisposable
typealias RxSingleAssignmentDisposable = SingleAssignmentDisposable

// RxSwift: schedulers and time.
typealias RxImmediateSchedulerType = any ImmediateSchedulerType
typealias RxSchedulerType = any SchedulerType
typealias RxMainScheduler = MainScheduler
typealias RxConcurrentMainScheduler = ConcurrentMainScheduler
typealias RxSerialDispatchQueueScheduler = SerialDispatchQueueScheduler
typealias RxConcurrentDispatchQueueScheduler = ConcurrentDispatchQueueScheduler
typealias RxCurrentThreadScheduler = CurrentThreadScheduler
typealias RxOperationQueueScheduler = OperationQueueScheduler
typealias RxVirtualTimeConverterType = any VirtualTimeConverterType
typealias RxVirtualTimeScheduler = VirtualTimeScheduler<HistoricalSchedulerTimeConverter>
typealias RxHistoricalScheduler = HistoricalScheduler
typealias RxHistoricalSchedulerTimeConverter = HistoricalSchedulerTimeConverter
typealias RxRxTime = RxTime
typealias RxRxTimeInterval = RxTimeInterval
typealias RxRxAbstractInteger = RxAbstractInteger

// RxSwift: errors, hooks, the rx namespace, binders.
typealias RxRxError = RxError
typealias RxHooks = Hooks
typealias RxResources = Resources
typealias RxReactive = Reactive<NSObject>
typealias RxReactiveCompatible = any ReactiveCompatible
typealias RxBinder = Binder<Int>

// RxRelay.
typealias RxPublishRelay = PublishRelay<Int>
typealias RxBehaviorRelay = BehaviorRelay<Int>
typealias RxReplayRelay = ReplayRelay<Int>

// RxCocoa: traits.
typealias RxDriver = Driver<Int>
typealias RxSignal = Signal<Int>
typealias RxSharedSequence = SharedSequence<DriverSharingStrategy, Int>
typealias RxSharedSequenceConvertibleType = any SharedSequenceConvertibleType
typealias RxSharingStrategyProtocol = any SharingStrategyProtocol.Type
typealias RxDriverSharingStrategy = DriverSharingStrategy
typealias RxSignalSharingStrategy = SignalSharingStrategy
typealias RxControlEvent = ControlEvent<Void>
typealias RxControlEventType = any ControlEventType
typealias RxControlProperty = ControlProperty<String>
typealias RxControlPropertyType = any ControlPropertyType

// RxCocoa: delegate proxies, KVO, errors, data sources, events.
typealias RxDelegateProxy = DelegateProxy<NSObject, Any>
typealias RxDelegateProxyType = any DelegateProxyType
typealias RxHasDelegate = any HasDelegate
typealias RxHasDataSource = any HasDataSource
typealias RxHasPrefetchDataSource = any HasPrefetchDataSource
typealias RxKVORepresentable = any KVORepresentable
typealias RxKeyValueObservingOptions = KeyValueObservingOptions
typealias RxRxCocoaError = RxCocoaError
typealias RxRxCocoaObjCRuntimeError = RxCocoaObjCRuntimeError
typealias RxRxCocoaInterceptionMechanism = RxCocoaInterceptionMechanism
typealias RxRxCocoaURLError = RxCocoaURLError
typealias RxSectionedViewDataSourceType = any SectionedViewDataSourceType
typealias RxRxTableViewDataSourceType = any RxTableViewDataSourceType
typealias RxRxCollectionViewDataSourceType = any RxCollectionViewDataSourceType
typealias RxRxPickerViewDataSourceType = any RxPickerViewDataSourceType
typealias RxTextInput = TextInput<NSObject>
typealias RxItemMovedEvent = ItemMovedEvent
typealias RxWillDisplayCellEvent = WillDisplayCellEvent
typealias RxDidEndDisplayingCellEvent = DidEndDisplayingCellEvent
typealias RxWillDisplaySupplementaryViewEvent = WillDisplaySupplementaryViewEvent
typealias RxDidEndDisplayingSupplementaryViewEvent = DidEndDisplayingSupplementaryViewEvent
typealias RxProxies = (
    RxCollectionViewDataSourcePrefetchingProxy, RxCollectionViewDataSourceProxy, RxCollectionViewDelegateProxy,
    RxNavigationControllerDelegateProxy, RxPickerViewDataSourceProxy, RxPickerViewDelegateProxy,
    RxScrollViewDelegateProxy, RxSearchBarDelegateProxy, RxSearchControllerDelegateProxy,
    RxTabBarControllerDelegateProxy, RxTabBarDelegateProxy, RxTableViewDataSourcePrefetchingProxy,
    RxTableViewDataSourceProxy, RxTableViewDelegateProxy, RxTextFieldDelegateProxy,
    RxTextStorageDelegateProxy, RxTextViewDelegateProxy, RxWKNavigationDelegateProxy
)

// AsyncBridge beside them, unqualified too: the renamed types, and code that mixes both.
typealias OurFlow = Flow<Int, any Error>
typealias OurFuture = SharedFuture<Int, any Error>
typealias OurSubjects = (LiveSubject<Int, Never>, LatestValueSubject<Int, Never>, ReplayingSubject<Int, Never>)
typealias OurRelays = (LiveRelay<Int>, LatestValueRelay<Int>, ReplayingRelay<Int>)
typealias OurBidirectionalRelays = (BidirectionalLiveRelay<Int>, BidirectionalLatestValueRelay<Int>)
typealias OurHandles = (CancellationToken, CancellationBag)

/// A view model in the middle of a migration: a RxRelay relay and an AsyncBridge relay side by
/// side, each with its own bag.
final class HalfMigratedViewModel {
    let disposeBag = DisposeBag()
    let bag = CancellationBag()
    let rxCount = BehaviorRelay(value: 0)
    let count = LatestValueRelay(value: 0)

    func start() {
        rxCount.subscribe(onNext: { print("rx", $0) }).disposed(by: disposeBag)
        count.flow.subscribe(onValue: { print("ours", $0) }, onCompletion: { _ in }).store(in: bag)
        let single = Single<Int>.create { observer in
            observer(.success(1))
            return Disposables.create()
        }
        _ = single.subscribe { result in print(result) }
        NotificationCenter.default.flow(for: .init("ping")).subscribe { _ in print("ping") }.store(in: bag)
        _ = SharedFuture<Int, Never> { completion in completion(.success(1)) }
            .subscribe(deliveringOn: nil) { result in print(result) }
    }
}
