// A stand-in for RxSwift 6 (RxSwift cannot be a dependency of this repository).
//
// It declares every public top-level type name of RxSwift's `RxSwift` module, with its generic
// arity (the list is .ci/public-names/RxSwift.txt, and .ci/check-public-names keeps the two in
// step). Where Migration.md's Rx adapter calls RxSwift, the declaration has RxSwift's own
// signature and a small working body: `Observable.create(_:)`, `subscribe(_:)`, `AnyObserver`,
// `Event`, `Disposables.create(with:)`, `DisposeBag`, `asSingle()`, `Single.create(subscribe:)` and
// `Single.subscribe(_:)`. Everything else only has to type-check, and traps if called.
//
// Compiled in the Swift 5 language mode, as RxSwift is.

import Dispatch
import Foundation

func rxStandIn(_ function: StaticString = #function) -> Never {
    fatalError("RxSwift stand-in: \(function) is declared for its name only")
}

// MARK: - Events and observers

/// RxSwift: `Event<Element>`.
@frozen public enum Event<Element> {
    case next(Element)
    case error(Swift.Error)
    case completed
}

/// RxSwift: `EventConvertible`.
public protocol EventConvertible {
    associatedtype Element
    var event: Event<Element> { get }
}

extension Event: EventConvertible {
    public var event: Event<Element> { self }
}

/// RxSwift: `ObserverType`.
public protocol ObserverType {
    associatedtype Element
    func on(_ event: Event<Element>)
}

extension ObserverType {
    public func onNext(_ element: Element) { on(.next(element)) }
    public func onCompleted() { on(.completed) }
    public func onError(_ error: Swift.Error) { on(.error(error)) }
    public func asObserver() -> AnyObserver<Element> { AnyObserver(self) }
}

/// RxSwift: `AnyObserver<Element>`.
public struct AnyObserver<Element>: ObserverType {
    public typealias EventHandler = (Event<Element>) -> Void

    private let observer: EventHandler

    public init(eventHandler: @escaping EventHandler) {
        observer = eventHandler
    }

    public init<Observer: ObserverType>(_ observer: Observer) where Observer.Element == Element {
        self.observer = observer.on
    }

    public func on(_ event: Event<Element>) {
        observer(event)
    }

    public func asObserver() -> AnyObserver<Element> { self }
}

// MARK: - Observables

/// RxSwift: `ObservableConvertibleType`.
public protocol ObservableConvertibleType {
    associatedtype Element
    func asObservable() -> Observable<Element>
}

/// RxSwift: `ObservableType`.
public protocol ObservableType: ObservableConvertibleType {
    func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element
}

extension ObservableType {
    public func asObservable() -> Observable<Element> {
        Observable.create { observer in self.subscribe(observer) }
    }

    /// RxSwift: `create(_:)`, with RxSwift 6's signature.
    public static func create(_ subscribe: @escaping (AnyObserver<Element>) -> Disposable) -> Observable<Element> {
        AnonymousObservable(subscribe)
    }

    /// RxSwift: `subscribe(_:)`, with RxSwift 6's signature.
    public func subscribe(_ on: @escaping (Event<Element>) -> Void) -> Disposable {
        asObservable().subscribe(AnyObserver(eventHandler: on))
    }

    public func subscribe(
        onNext: ((Element) -> Void)? = nil,
        onError: ((Swift.Error) -> Void)? = nil,
        onCompleted: (() -> Void)? = nil,
        onDisposed: (() -> Void)? = nil
    ) -> Disposable {
        let disposed = onDisposed.map(Disposables.create(with:)) ?? Disposables.create()
        let subscription = subscribe { event in
            switch event {
            case .next(let element): onNext?(element)
            case .error(let error): onError?(error); disposed.dispose()
            case .completed: onCompleted?(); disposed.dispose()
            }
        }
        return Disposables.create(subscription, disposed)
    }
}

/// RxSwift: `Observable<Element>`.
public class Observable<Element>: ObservableType {
    init() {}

    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element {
        rxStandIn()
    }

    public func asObservable() -> Observable<Element> { self }
}

/// `Observable.create`'s observable: the events of one subscription stop at the first
/// completion or at `dispose()`, and the subscription is disposed after a completion (as in
/// RxSwift).
final class AnonymousObservable<Element>: Observable<Element> {
    let subscribeHandler: (AnyObserver<Element>) -> Disposable

    init(_ subscribeHandler: @escaping (AnyObserver<Element>) -> Disposable) {
        self.subscribeHandler = subscribeHandler
    }

    override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element {
        let sink = AnonymousSink(forward: observer.on)
        sink.setSubscription(subscribeHandler(AnyObserver(eventHandler: sink.on)))
        return Disposables.create(with: sink.dispose)
    }
}

final class AnonymousSink<Element> {
    private let lock = NSLock()
    private var stopped = false
    private var disposed = false
    private var subscription: Disposable?
    private let forward: (Event<Element>) -> Void

    init(forward: @escaping (Event<Element>) -> Void) {
        self.forward = forward
    }

    func on(_ event: Event<Element>) {
        lock.lock()
        if stopped || disposed {
            lock.unlock()
            return
        }
        if case .next = event {} else { stopped = true }
        lock.unlock()
        forward(event)
        if stopped { dispose() }
    }

    func setSubscription(_ newSubscription: Disposable) {
        lock.lock()
        if disposed {
            lock.unlock()
            newSubscription.dispose()
            return
        }
        subscription = newSubscription
        lock.unlock()
    }

    func dispose() {
        lock.lock()
        if disposed {
            lock.unlock()
            return
        }
        disposed = true
        let taken = subscription
        subscription = nil
        lock.unlock()
        taken?.dispose()
    }
}

/// RxSwift: `ConnectableObservableType`.
public protocol ConnectableObservableType: ObservableType {
    func connect() -> Disposable
}

/// RxSwift: `ConnectableObservable<Element>`.
public class ConnectableObservable<Element>: Observable<Element>, ConnectableObservableType {
    public func connect() -> Disposable { rxStandIn() }
}

/// RxSwift: `GroupedObservable<Key, Element>`.
public struct GroupedObservable<Key, Element>: ObservableType {
    public let key: Key
    private let source: Observable<Element>

    public init(key: Key, source: Observable<Element>) {
        self.key = key
        self.source = source
    }

    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element {
        source.subscribe(observer)
    }

    public func asObservable() -> Observable<Element> { source }
}

// MARK: - Disposables

/// RxSwift: `Disposable`.
public protocol Disposable {
    func dispose()
}

/// RxSwift: `Cancelable`.
public protocol Cancelable: Disposable {
    var isDisposed: Bool { get }
}

/// RxSwift: `DisposeBase`.
public class DisposeBase {
    init() {}
}

/// A disposable that runs an action once.
final class ActionDisposable: DisposeBase, Cancelable {
    private let lock = NSLock()
    private var action: (() -> Void)?
    private var disposed = false

    init(_ action: (() -> Void)?) {
        self.action = action
    }

    var isDisposed: Bool {
        lock.lock()
        defer { lock.unlock() }
        return disposed
    }

    func dispose() {
        lock.lock()
        if disposed {
            lock.unlock()
            return
        }
        disposed = true
        let taken = action
        action = nil
        lock.unlock()
        taken?()
    }
}

/// RxSwift: `Disposables`.
public struct Disposables {
    private init() {}

    public static func create() -> Disposable { ActionDisposable(nil) }

    /// RxSwift: `create(with:)`, with RxSwift 6's signature.
    public static func create(with dispose: @escaping () -> Void) -> Cancelable { ActionDisposable(dispose) }

    public static func create(_ disposable1: Disposable, _ disposable2: Disposable) -> Cancelable {
        ActionDisposable {
            disposable1.dispose()
            disposable2.dispose()
        }
    }

    public static func create(_ disposables: [Disposable]) -> Cancelable {
        ActionDisposable { disposables.forEach { $0.dispose() } }
    }
}

/// RxSwift: `DisposeBag`: disposes what it holds when it is released.
public final class DisposeBag: DisposeBase {
    private let lock = NSLock()
    private var disposables: [Disposable] = []
    private var disposed = false

    public override init() {}

    public func insert(_ disposable: Disposable) {
        lock.lock()
        if disposed {
            lock.unlock()
            disposable.dispose()
            return
        }
        disposables.append(disposable)
        lock.unlock()
    }

    deinit {
        lock.lock()
        disposed = true
        let taken = disposables
        disposables = []
        lock.unlock()
        taken.forEach { $0.dispose() }
    }
}

extension Disposable {
    public func disposed(by bag: DisposeBag) {
        bag.insert(self)
    }
}

/// RxSwift: `BooleanDisposable`.
public final class BooleanDisposable: DisposeBase, Cancelable {
    public var isDisposed: Bool { rxStandIn() }
    public func dispose() { rxStandIn() }
}

/// RxSwift: `CompositeDisposable`.
public final class CompositeDisposable: DisposeBase, Cancelable {
    public var isDisposed: Bool { rxStandIn() }
    public func dispose() { rxStandIn() }
}

/// RxSwift: `RefCountDisposable`.
public final class RefCountDisposable: DisposeBase, Cancelable {
    public var isDisposed: Bool { rxStandIn() }
    public func dispose() { rxStandIn() }
}

/// RxSwift: `ScheduledDisposable`.
public final class ScheduledDisposable: Cancelable {
    public var isDisposed: Bool { rxStandIn() }
    public func dispose() { rxStandIn() }
}

/// RxSwift: `SerialDisposable`.
public final class SerialDisposable: DisposeBase, Cancelable {
    public var isDisposed: Bool { rxStandIn() }
    public func dispose() { rxStandIn() }
}

/// RxSwift: `SingleAssignmentDisposable`.
public final class SingleAssignmentDisposable: DisposeBase, Cancelable {
    public var isDisposed: Bool { rxStandIn() }
    public func dispose() { rxStandIn() }
}

// MARK: - Traits

/// RxSwift: `PrimitiveSequence<Trait, Element>` (`Single`, `Maybe`, `Completable`).
public struct PrimitiveSequence<Trait, Element> {
    let source: Observable<Element>

    init(raw: Observable<Element>) {
        source = raw
    }
}

/// RxSwift: `PrimitiveSequenceType`.
public protocol PrimitiveSequenceType {
    associatedtype Trait
    associatedtype Element
    var primitiveSequence: PrimitiveSequence<Trait, Element> { get }
}

extension PrimitiveSequence: PrimitiveSequenceType {
    public var primitiveSequence: PrimitiveSequence<Trait, Element> { self }
}

extension PrimitiveSequence: ObservableConvertibleType {
    public func asObservable() -> Observable<Element> { source }
}

/// RxSwift: `SingleTrait`.
public enum SingleTrait {}
/// RxSwift: `Single<Element>`.
public typealias Single<Element> = PrimitiveSequence<SingleTrait, Element>
/// RxSwift: `SingleEvent<Element>`.
public typealias SingleEvent<Element> = Result<Element, Swift.Error>

extension PrimitiveSequenceType where Trait == SingleTrait {
    public typealias SingleObserver = (SingleEvent<Element>) -> Void

    /// RxSwift: `Single.create(subscribe:)`, with RxSwift 6's signature.
    public static func create(subscribe: @escaping (@escaping SingleObserver) -> Disposable) -> Single<Element> {
        let source = Observable<Element>.create { observer in
            subscribe { event in
                switch event {
                case .success(let element):
                    observer.on(.next(element))
                    observer.on(.completed)
                case .failure(let error):
                    observer.on(.error(error))
                }
            }
        }
        return PrimitiveSequence(raw: source)
    }

    /// RxSwift: `Single.subscribe(_:)`, with RxSwift 6's signature.
    public func subscribe(_ observer: @escaping (SingleEvent<Element>) -> Void) -> Disposable {
        var stopped = false
        return primitiveSequence.asObservable().subscribe { event in
            if stopped { return }
            stopped = true
            switch event {
            case .next(let element): observer(.success(element))
            case .error(let error): observer(.failure(error))
            case .completed: break
            }
        }
    }
}

extension ObservableType {
    /// RxSwift: `asSingle()`, with RxSwift 6's signature: the one element, then the end; an
    /// error if there is none (`RxError.noElements`) or more than one (`.moreThanOneElement`).
    public func asSingle() -> Single<Element> {
        let source = asObservable()
        return PrimitiveSequence(raw: Observable.create { observer in
            var element: Element?
            return source.subscribe { event in
                switch event {
                case .next(let next):
                    if element == nil {
                        element = next
                    } else {
                        observer.on(.error(RxError.moreThanOneElement))
                    }
                case .error(let error):
                    observer.on(.error(error))
                case .completed:
                    if let element {
                        observer.on(.next(element))
                        observer.on(.completed)
                    } else {
                        observer.on(.error(RxError.noElements))
                    }
                }
            }
        })
    }
}

/// RxSwift: `MaybeTrait`.
public enum MaybeTrait {}
/// RxSwift: `Maybe<Element>`.
public typealias Maybe<Element> = PrimitiveSequence<MaybeTrait, Element>

/// RxSwift: `MaybeEvent<Element>`.
@frozen public enum MaybeEvent<Element> {
    case success(Element)
    case error(Swift.Error)
    case completed
}

/// RxSwift: `CompletableTrait`.
public enum CompletableTrait {}
/// RxSwift: `Completable`.
public typealias Completable = PrimitiveSequence<CompletableTrait, Swift.Never>

/// RxSwift: `CompletableEvent`.
@frozen public enum CompletableEvent {
    case error(Swift.Error)
    case completed
}

/// RxSwift: `InfallibleType`.
public protocol InfallibleType: ObservableConvertibleType {}

/// RxSwift: `Infallible<Element>`.
public struct Infallible<Element>: InfallibleType {
    private let source: Observable<Element>

    init(_ source: Observable<Element>) {
        self.source = source
    }

    public func asObservable() -> Observable<Element> { source }
}

/// RxSwift: `InfallibleEvent<Element>`.
public enum InfallibleEvent<Element> {
    case next(Element)
    case completed
}

// MARK: - Subjects

/// RxSwift: `SubjectType`.
public protocol SubjectType: ObservableType {
    associatedtype Observer: ObserverType
    func asObserver() -> Observer
}

/// RxSwift: `PublishSubject<Element>`.
public final class PublishSubject<Element>: Observable<Element>, SubjectType, Cancelable, ObserverType {
    public override init() {}
    public var isDisposed: Bool { rxStandIn() }
    public func on(_ event: Event<Element>) { rxStandIn() }
    public func asObserver() -> PublishSubject<Element> { self }
    public func dispose() { rxStandIn() }
}

/// RxSwift: `BehaviorSubject<Element>`.
public final class BehaviorSubject<Element>: Observable<Element>, SubjectType, ObserverType, Disposable {
    public init(value: Element) {}
    public func value() throws -> Element { rxStandIn() }
    public func on(_ event: Event<Element>) { rxStandIn() }
    public func asObserver() -> BehaviorSubject<Element> { self }
    public func dispose() { rxStandIn() }
}

/// RxSwift: `ReplaySubject<Element>`.
public class ReplaySubject<Element>: Observable<Element>, SubjectType, ObserverType, Disposable {
    override init() {}
    public static func create(bufferSize: Int) -> ReplaySubject<Element> { rxStandIn() }
    public static func createUnbounded() -> ReplaySubject<Element> { rxStandIn() }
    public func on(_ event: Event<Element>) { rxStandIn() }
    public func asObserver() -> ReplaySubject<Element> { self }
    public func dispose() { rxStandIn() }
}

/// RxSwift: `AsyncSubject<Element>`.
public final class AsyncSubject<Element>: Observable<Element>, SubjectType, ObserverType {
    public override init() {}
    public func on(_ event: Event<Element>) { rxStandIn() }
    public func asObserver() -> AsyncSubject<Element> { self }
}

/// RxSwift 5: `Variable<Element>` (deprecated there, removed in RxSwift 6; kept for apps that
/// still have it).
public final class Variable<Element> {
    public init(_ value: Element) {}
    public var value: Element {
        get { rxStandIn() }
        set { rxStandIn() }
    }
}

// MARK: - Schedulers

/// RxSwift: `RxTime`.
public typealias RxTime = Date
/// RxSwift: `RxTimeInterval`.
public typealias RxTimeInterval = DispatchTimeInterval
/// RxSwift: `RxAbstractInteger`.
public typealias RxAbstractInteger = FixedWidthInteger

/// RxSwift: `ImmediateSchedulerType`.
public protocol ImmediateSchedulerType {
    func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable
}

/// RxSwift: `SchedulerType`.
public protocol SchedulerType: ImmediateSchedulerType {
    var now: RxTime { get }
}

/// The body shared by the stand-in schedulers (not a name of RxSwift: public only because
/// public classes derive from it; .ci/check-public-names ignores names that start with `_`).
open class _StandInScheduler: SchedulerType {
    init() {}
    open var now: RxTime { rxStandIn() }
    public func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        rxStandIn()
    }
}

/// RxSwift: `SerialDispatchQueueScheduler`.
public class SerialDispatchQueueScheduler: _StandInScheduler {
    public init(queue: DispatchQueue, internalSerialQueueName: String) {}
}

/// RxSwift: `MainScheduler`.
public final class MainScheduler: SerialDispatchQueueScheduler {
    public init() { super.init(queue: .main, internalSerialQueueName: "rx.main") }
    public static let instance = MainScheduler()
}

/// RxSwift: `ConcurrentDispatchQueueScheduler`.
public class ConcurrentDispatchQueueScheduler: _StandInScheduler {
    public init(queue: DispatchQueue) {}
}

/// RxSwift: `ConcurrentMainScheduler`.
public final class ConcurrentMainScheduler: _StandInScheduler {}

/// RxSwift: `CurrentThreadScheduler`.
public class CurrentThreadScheduler: _StandInScheduler {}

/// RxSwift: `OperationQueueScheduler`.
public class OperationQueueScheduler: _StandInScheduler {
    public init(operationQueue: OperationQueue) {}
}

/// RxSwift: `VirtualTimeConverterType`.
public protocol VirtualTimeConverterType {
    associatedtype VirtualTimeUnit
    associatedtype VirtualTimeIntervalUnit
}

/// RxSwift: `VirtualTimeScheduler<Converter>`.
open class VirtualTimeScheduler<Converter: VirtualTimeConverterType>: _StandInScheduler {
    public init(initialClock: Converter.VirtualTimeUnit, converter: Converter) {}
}

/// RxSwift: `HistoricalSchedulerTimeConverter`.
public struct HistoricalSchedulerTimeConverter: VirtualTimeConverterType {
    public typealias VirtualTimeUnit = RxTime
    public typealias VirtualTimeIntervalUnit = TimeInterval
}

/// RxSwift: `HistoricalScheduler`.
open class HistoricalScheduler: VirtualTimeScheduler<HistoricalSchedulerTimeConverter> {
    public init(initialClock: RxTime = Date(timeIntervalSince1970: 0)) {
        super.init(initialClock: initialClock, converter: HistoricalSchedulerTimeConverter())
    }
}

// MARK: - Errors, hooks, reactive extensions, binders

/// RxSwift: `RxError`.
public enum RxError: Swift.Error {
    case unknown
    case disposed(object: AnyObject)
    case overflow
    case argumentOutOfRange
    case noElements
    case moreThanOneElement
    case timeout
}

/// RxSwift: `Hooks`.
public enum Hooks {
    public typealias DefaultErrorHandler = (_ subscriptionCallStack: [String], _ error: Error) -> Void
}

/// RxSwift (built with `TRACE_RESOURCES`): `Resources`.
public struct Resources {}

/// RxSwift: `Reactive<Base>`, the `rx` namespace.
public struct Reactive<Base> {
    public let base: Base

    public init(_ base: Base) {
        self.base = base
    }
}

/// RxSwift: `ReactiveCompatible`.
public protocol ReactiveCompatible {
    associatedtype ReactiveBase
}

/// RxSwift (RxCocoa before RxSwift 6): `Binder<Value>`.
public struct Binder<Value>: ObserverType {
    private let binding: (Event<Value>) -> Void

    public init<Target: AnyObject>(_ target: Target, binding: @escaping (Target, Value) -> Void) {
        self.binding = { [weak target] event in
            if case .next(let value) = event, let target { binding(target, value) }
        }
    }

    public func on(_ event: Event<Value>) {
        binding(event)
    }
}
