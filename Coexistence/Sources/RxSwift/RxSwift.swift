// A stand-in for RxSwift 6 (RxSwift cannot be a dependency of this repository).
//
// It declares every public top-level type name of RxSwift's `RxSwift` module, with its generic
// arity (the list is .ci/public-names/RxSwift.txt, and .ci/check-public-names keeps the two in
// step). Where Migration.md's Rx adapter or its tests (Tests/RxAdapterTests) call RxSwift, the
// declaration has RxSwift's own signature and a small working body that behaves as RxSwift does
// where the adapter depends on it:
//
// - Subscriptions: `Observable.create(_:)` and the operators below are producers. A subscription
//   runs on the current-thread trampoline (`CurrentThreadScheduler`), and the disposable it
//   returns learns the operator's sink and upstream subscription only once the operator has
//   subscribed upstream. So an operator can dispose its upstream only after that: a `create`
//   closure that emits before returning its disposable cannot be stopped by a `take(1)` below it,
//   while sources that emit from the trampoline (`from`, `of`, `repeatElement`) can.
// - Operators: `take(_:)`, `take(while:behavior:)`, `take(until:behavior:)`, `empty()`,
//   `from(_:scheduler:)`, `of(_:scheduler:)`, `repeatElement(_:scheduler:)`, `asSingle()`.
// - Subscribing: `subscribe(_:)`, `subscribe(onNext:onError:onCompleted:onDisposed:)`,
//   `AnyObserver`, `Event`; `Single.create(subscribe:)` and `Single.subscribe(_:)`.
// - Disposables: `Disposables.create()`, `create(with:)`, `create(_:_:)`, `create(_:)`,
//   `SingleAssignmentDisposable`, `DisposeBag`.
//
// Everything else only has to type-check, and traps if called.
//
// Compiled in the Swift 5 language mode, as RxSwift is.

import Dispatch
import Foundation

func rxStandIn(_ function: StaticString = #function) -> Never {
    fatalError("RxSwift stand-in: \(function) is declared for its name only")
}

func rxAbstractMethod(_ function: StaticString = #function) -> Never {
    fatalError("RxSwift stand-in: \(function) is abstract")
}

extension NSLock {
    func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
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
        asObservable().subscribe(AnonymousObserver(on))
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
        rxAbstractMethod()
    }

    public func asObservable() -> Observable<Element> { self }
}

/// RxSwift's `ObserverBase` behind `subscribe(_:)`: forwards events until the first completion.
final class AnonymousObserver<Element>: ObserverType {
    private let lock = NSLock()
    private var stopped = false
    private let handler: (Event<Element>) -> Void

    init(_ handler: @escaping (Event<Element>) -> Void) {
        self.handler = handler
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next:
            if !lock.locked({ stopped }) { handler(event) }
        case .error, .completed:
            let first = lock.locked { () -> Bool in
                defer { stopped = true }
                return !stopped
            }
            if first { handler(event) }
        }
    }
}

// MARK: - Producers and sinks

/// RxSwift's `Producer`, the base of `create` and of the operators. `subscribe` runs `run` on
/// the current-thread trampoline: at once if it is already running on this thread, else it
/// starts it (and the work it queues runs before `subscribe` returns). The disposable returned
/// is a `SinkDisposer`, which learns the sink and the upstream subscription only when `run`
/// returns: disposed earlier (by an event `run` delivered synchronously), it disposes them then.
class Producer<Element>: Observable<Element> {
    override init() {}

    override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element {
        let subscribe = { () -> Disposable in
            let disposer = SinkDisposer()
            let sinkAndSubscription = self.run(observer, cancel: disposer)
            disposer.setSinkAndSubscription(sink: sinkAndSubscription.sink, subscription: sinkAndSubscription.subscription)
            return disposer
        }
        if !CurrentThreadScheduler.isScheduleRequired {
            return subscribe()
        }
        return CurrentThreadScheduler.instance.schedule(()) { _ in subscribe() }
    }

    func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable)
    where Observer.Element == Element {
        rxAbstractMethod()
    }
}

/// RxSwift's `SinkDisposer`: a producer's subscription.
final class SinkDisposer: Cancelable {
    private let lock = NSLock()
    private var disposed = false
    private var sinkAndSubscription: (sink: Disposable, subscription: Disposable)?

    var isDisposed: Bool { lock.locked { disposed } }

    func setSinkAndSubscription(sink: Disposable, subscription: Disposable) {
        let alreadyDisposed = lock.locked { () -> Bool in
            if !disposed { sinkAndSubscription = (sink, subscription) }
            return disposed
        }
        if alreadyDisposed {
            sink.dispose()
            subscription.dispose()
        }
    }

    func dispose() {
        let taken = lock.locked { () -> (sink: Disposable, subscription: Disposable)? in
            if disposed { return nil }
            disposed = true
            defer { sinkAndSubscription = nil }
            return sinkAndSubscription
        }
        taken?.sink.dispose()
        taken?.subscription.dispose()
    }
}

/// RxSwift's `Sink`: an operator's subscriber. Once disposed it forwards nothing, and disposing
/// it disposes the producer's `SinkDisposer`.
class Sink<Observer: ObserverType>: Disposable {
    let observer: Observer
    let cancel: Cancelable
    private let lock = NSLock()
    private var disposed = false

    init(observer: Observer, cancel: Cancelable) {
        self.observer = observer
        self.cancel = cancel
    }

    final func forwardOn(_ event: Event<Observer.Element>) {
        if isDisposed { return }
        observer.on(event)
    }

    final var isDisposed: Bool { lock.locked { disposed } }

    func dispose() {
        lock.locked { disposed = true }
        cancel.dispose()
    }
}

/// `Observable.create`'s observable: runs the closure inside `subscribe`, so whatever it emits
/// before returning its disposable reaches the observer before anything downstream can dispose it.
final class AnonymousObservable<Element>: Producer<Element> {
    let subscribeHandler: (AnyObserver<Element>) -> Disposable

    init(_ subscribeHandler: @escaping (AnyObserver<Element>) -> Disposable) {
        self.subscribeHandler = subscribeHandler
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable)
    where Observer.Element == Element {
        let sink = AnonymousObservableSink(observer: observer, cancel: cancel)
        let subscription = subscribeHandler(AnyObserver(sink))
        return (sink: sink, subscription: subscription)
    }
}

/// `create`'s sink: the events stop at the first completion, after which the subscription is
/// disposed.
final class AnonymousObservableSink<Observer: ObserverType>: Sink<Observer>, ObserverType {
    typealias Element = Observer.Element

    private let lock = NSLock()
    private var stopped = false

    func on(_ event: Event<Element>) {
        switch event {
        case .next:
            if lock.locked({ stopped }) { return }
            forwardOn(event)
        case .error, .completed:
            let first = lock.locked { () -> Bool in
                defer { stopped = true }
                return !stopped
            }
            if first {
                forwardOn(event)
                dispose()
            }
        }
    }
}

// MARK: - Operators

extension ObservableType {
    /// RxSwift: `empty()`: completes at once.
    public static func empty() -> Observable<Element> {
        EmptyProducer()
    }

    /// RxSwift: `from(_:scheduler:)` for an array: the elements are sent from `scheduler`, one
    /// scheduled action each (on the trampoline by default).
    public static func from(_ array: [Element], scheduler: ImmediateSchedulerType = CurrentThreadScheduler.instance) -> Observable<Element> {
        ObservableSequence(elements: array, scheduler: scheduler)
    }

    /// RxSwift: `from(_:scheduler:)` for any sequence.
    public static func from<Sequence: Swift.Sequence>(
        _ sequence: Sequence,
        scheduler: ImmediateSchedulerType = CurrentThreadScheduler.instance
    ) -> Observable<Element> where Sequence.Element == Element {
        ObservableSequence(elements: sequence, scheduler: scheduler)
    }

    /// RxSwift: `of(_:scheduler:)`.
    public static func of(_ elements: Element..., scheduler: ImmediateSchedulerType = CurrentThreadScheduler.instance) -> Observable<Element> {
        ObservableSequence(elements: elements, scheduler: scheduler)
    }

    /// RxSwift: `repeatElement(_:scheduler:)`: the element forever, one scheduled action each.
    public static func repeatElement(_ element: Element, scheduler: ImmediateSchedulerType = CurrentThreadScheduler.instance) -> Observable<Element> {
        RepeatElement(element: element, scheduler: scheduler)
    }

    /// RxSwift: `take(_:)`: after the `count`-th element, completes and disposes its upstream.
    public func take(_ count: Int) -> Observable<Element> {
        if count == 0 {
            return Observable.empty()
        }
        return TakeCount(source: asObservable(), count: count)
    }

    /// RxSwift: `take(until:behavior:)`: at the first element that passes `predicate`,
    /// completes (after that element if `.inclusive`) and disposes its upstream.
    public func take(until predicate: @escaping (Element) throws -> Bool, behavior: TakeBehavior = .exclusive) -> Observable<Element> {
        TakeUntilPredicate(source: asObservable(), behavior: behavior, predicate: predicate)
    }

    /// RxSwift: `take(while:behavior:)`: `take(until:)` with the predicate negated.
    public func take(while predicate: @escaping (Element) throws -> Bool, behavior: TakeBehavior = .exclusive) -> Observable<Element> {
        take(until: { try !predicate($0) }, behavior: behavior)
    }
}

/// RxSwift: `TakeBehavior`.
public enum TakeBehavior {
    case inclusive
    case exclusive
}

final class EmptyProducer<Element>: Producer<Element> {
    override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element {
        observer.on(.completed)
        return Disposables.create()
    }
}

final class ObservableSequence<Elements: Swift.Sequence>: Producer<Elements.Element> {
    let elements: Elements
    let scheduler: ImmediateSchedulerType

    init(elements: Elements, scheduler: ImmediateSchedulerType) {
        self.elements = elements
        self.scheduler = scheduler
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable)
    where Observer.Element == Element {
        let sink = Sink(observer: observer, cancel: cancel)
        let subscription = scheduler.scheduleRecursive(elements.makeIterator()) { iterator, recurse in
            var iterator = iterator
            if let next = iterator.next() {
                sink.forwardOn(.next(next))
                recurse(iterator)
            } else {
                sink.forwardOn(.completed)
                sink.dispose()
            }
        }
        return (sink: sink, subscription: subscription)
    }
}

final class RepeatElement<Element>: Producer<Element> {
    let element: Element
    let scheduler: ImmediateSchedulerType

    init(element: Element, scheduler: ImmediateSchedulerType) {
        self.element = element
        self.scheduler = scheduler
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable)
    where Observer.Element == Element {
        let sink = Sink(observer: observer, cancel: cancel)
        let subscription = scheduler.scheduleRecursive(element) { element, recurse in
            sink.forwardOn(.next(element))
            recurse(element)
        }
        return (sink: sink, subscription: subscription)
    }
}

final class TakeCount<Element>: Producer<Element> {
    let source: Observable<Element>
    let count: Int

    init(source: Observable<Element>, count: Int) {
        precondition(count >= 0, "count can't be negative")
        self.source = source
        self.count = count
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable)
    where Observer.Element == Element {
        let sink = TakeCountSink(observer: observer, cancel: cancel, count: count)
        let subscription = source.subscribe(sink)
        return (sink: sink, subscription: subscription)
    }
}

final class TakeCountSink<Observer: ObserverType>: Sink<Observer>, ObserverType {
    typealias Element = Observer.Element
    private var remaining: Int

    init(observer: Observer, cancel: Cancelable, count: Int) {
        remaining = count
        super.init(observer: observer, cancel: cancel)
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next:
            if remaining > 0 {
                remaining -= 1
                forwardOn(event)
                if remaining == 0 {
                    forwardOn(.completed)
                    dispose()
                }
            }
        case .error, .completed:
            forwardOn(event)
            dispose()
        }
    }
}

final class TakeUntilPredicate<Element>: Producer<Element> {
    let source: Observable<Element>
    let behavior: TakeBehavior
    let predicate: (Element) throws -> Bool

    init(source: Observable<Element>, behavior: TakeBehavior, predicate: @escaping (Element) throws -> Bool) {
        self.source = source
        self.behavior = behavior
        self.predicate = predicate
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable)
    where Observer.Element == Element {
        let sink = TakeUntilPredicateSink(parent: self, observer: observer, cancel: cancel)
        let subscription = source.subscribe(sink)
        return (sink: sink, subscription: subscription)
    }
}

final class TakeUntilPredicateSink<Observer: ObserverType>: Sink<Observer>, ObserverType {
    typealias Element = Observer.Element
    private let parent: TakeUntilPredicate<Element>
    private var running = true

    init(parent: TakeUntilPredicate<Element>, observer: Observer, cancel: Cancelable) {
        self.parent = parent
        super.init(observer: observer, cancel: cancel)
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next(let value):
            if !running { return }
            do {
                running = try !parent.predicate(value)
            } catch {
                forwardOn(.error(error))
                dispose()
                return
            }
            if running {
                forwardOn(event)
            } else {
                if parent.behavior == .inclusive { forwardOn(event) }
                forwardOn(.completed)
                dispose()
            }
        case .error, .completed:
            forwardOn(event)
            dispose()
        }
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

/// RxSwift: `SingleAssignmentDisposable`: holds one disposable, set once, perhaps after it was
/// disposed: a disposable set then is disposed at once.
public final class SingleAssignmentDisposable: DisposeBase, Cancelable {
    private let lock = NSLock()
    private var disposed = false
    private var assigned = false
    private var disposable: Disposable?

    public override init() {}

    public var isDisposed: Bool { lock.locked { disposed } }

    public func setDisposable(_ disposable: Disposable) {
        let disposeNow = lock.locked { () -> Bool in
            precondition(!assigned, "oldState.disposable != nil")
            assigned = true
            if !disposed { self.disposable = disposable }
            return disposed
        }
        if disposeNow { disposable.dispose() }
    }

    public func dispose() {
        let taken = lock.locked { () -> Disposable? in
            if disposed { return nil }
            disposed = true
            defer { disposable = nil }
            return disposable
        }
        taken?.dispose()
    }
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

// MARK: - The current-thread trampoline

/// RxSwift: `CurrentThreadScheduler`, the trampoline. `schedule` on a thread where it is not
/// running runs the action at once, then every action scheduled meanwhile on this thread, in
/// order, before it returns; inside that run, `schedule` queues the action and returns a
/// disposable that unqueues it. Producers subscribe through it (see `Producer`).
public class CurrentThreadScheduler: ImmediateSchedulerType {
    /// The singleton instance of the current thread scheduler.
    public static let instance = CurrentThreadScheduler()

    private static let queueKey = "RxSwift.CurrentThreadScheduler.Queue"

    /// The actions queued on this thread while the trampoline runs here; nil when it does not.
    private static var queue: TrampolineQueue? {
        get { Thread.current.threadDictionary[queueKey] as? TrampolineQueue }
        set { Thread.current.threadDictionary[queueKey] = newValue }
    }

    /// Whether the trampoline is not running on this thread (the caller must schedule).
    public private(set) static var isScheduleRequired: Bool {
        get { queue == nil }
        set { queue = newValue ? nil : (queue ?? TrampolineQueue()) }
    }

    init() {}

    public func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        if CurrentThreadScheduler.isScheduleRequired {
            CurrentThreadScheduler.isScheduleRequired = false
            defer { CurrentThreadScheduler.isScheduleRequired = true }
            let disposable = action(state)
            let queue = CurrentThreadScheduler.queue!
            while let item = queue.dequeue() {
                if item.isDisposed { continue }
                item.invoke()
            }
            return disposable
        }
        let item = ScheduledItem(action: action, state: state)
        CurrentThreadScheduler.queue!.enqueue(item)
        return item
    }
}

final class TrampolineQueue {
    private var items: [ScheduledItemType] = []
    private var head = 0

    func enqueue(_ item: ScheduledItemType) {
        items.append(item)
    }

    func dequeue() -> ScheduledItemType? {
        guard head < items.count else { return nil }
        defer {
            head += 1
            if head == items.count {
                items.removeAll(keepingCapacity: true)
                head = 0
            }
        }
        return items[head]
    }
}

protocol ScheduledItemType: Cancelable {
    func invoke()
}

/// RxSwift's `ScheduledItem`: a queued action; disposed before it runs, it does not run;
/// disposed after, it disposes what the action returned.
struct ScheduledItem<State>: ScheduledItemType {
    private let action: (State) -> Disposable
    private let state: State
    private let disposable = SingleAssignmentDisposable()

    init(action: @escaping (State) -> Disposable, state: State) {
        self.action = action
        self.state = state
    }

    var isDisposed: Bool { disposable.isDisposed }

    func invoke() {
        disposable.setDisposable(action(state))
    }

    func dispose() {
        disposable.dispose()
    }
}

extension ImmediateSchedulerType {
    /// RxSwift: `scheduleRecursive(_:action:)`: runs `action`, which may call `recurse` to
    /// schedule itself again with a new state; disposing the result stops the recursion.
    public func scheduleRecursive<State>(_ state: State, action: @escaping (_ state: State, _ recurse: (State) -> Void) -> Void) -> Disposable {
        let recursiveScheduler = RecursiveImmediateScheduler(action: action, scheduler: self)
        recursiveScheduler.schedule(state)
        return Disposables.create(with: recursiveScheduler.dispose)
    }
}

/// RxSwift's `RecursiveImmediateScheduler`: keeps the pending scheduled actions, so that
/// disposing it unqueues them.
final class RecursiveImmediateScheduler<State> {
    typealias Action = (_ state: State, _ recurse: (State) -> Void) -> Void

    private let lock = NSRecursiveLock()
    private var action: Action?
    private var disposed = false
    private var pending: [Int: Disposable] = [:]
    private var nextKey = 0
    private let scheduler: ImmediateSchedulerType

    init(action: @escaping Action, scheduler: ImmediateSchedulerType) {
        self.action = action
        self.scheduler = scheduler
    }

    func schedule(_ state: State) {
        var key: Int?
        var done = false
        let scheduled = scheduler.schedule(state) { state -> Disposable in
            self.lock.lock()
            if let key { self.pending[key] = nil }
            done = true
            let action = self.disposed ? nil : self.action
            self.lock.unlock()
            action?(state, self.schedule)
            return Disposables.create()
        }
        lock.lock()
        if done {
            lock.unlock()
            return
        }
        if disposed {
            lock.unlock()
            scheduled.dispose()
            return
        }
        key = nextKey
        nextKey += 1
        pending[key!] = scheduled
        lock.unlock()
    }

    func dispose() {
        lock.lock()
        action = nil
        disposed = true
        let taken = pending.values
        pending = [:]
        lock.unlock()
        taken.forEach { $0.dispose() }
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
