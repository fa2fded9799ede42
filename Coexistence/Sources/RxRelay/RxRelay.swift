// A stand-in for RxSwift 6's `RxRelay` module: its public type names (.ci/public-names/RxRelay.txt)
// with RxRelay's signatures for `accept(_:)`, `value`, `init(value:)`, `subscribe(_:)`,
// `asObservable()` and `bind(to:)`, and small working bodies. Compiled in the Swift 5 language
// mode, as RxRelay is.

import Foundation
import RxSwift

/// The subscribers and the replayed values of one relay.
final class RelayCore<Element> {
    private let lock = NSLock()
    private var observers: [UInt64: AnyObserver<Element>] = [:]
    private var nextID: UInt64 = 0
    private var buffer: [Element]
    private let bufferSize: Int

    init(initial: [Element], bufferSize: Int) {
        buffer = initial
        self.bufferSize = bufferSize
    }

    var latest: Element? {
        lock.lock()
        defer { lock.unlock() }
        return buffer.last
    }

    func accept(_ element: Element) {
        lock.lock()
        if bufferSize > 0 {
            buffer.append(element)
            if buffer.count > bufferSize { buffer.removeFirst(buffer.count - bufferSize) }
        }
        let targets = Array(observers.values)
        lock.unlock()
        targets.forEach { $0.on(.next(element)) }
    }

    func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element {
        lock.lock()
        let id = nextID
        nextID += 1
        observers[id] = AnyObserver(observer)
        let replay = buffer
        lock.unlock()
        replay.forEach { observer.on(.next($0)) }
        return Disposables.create { [weak self] in
            guard let self else { return }
            self.lock.lock()
            let removed = self.observers.removeValue(forKey: id)
            self.lock.unlock()
            _ = removed
        }
    }
}

/// RxRelay: `PublishRelay<Element>`.
public final class PublishRelay<Element>: ObservableType {
    private let core = RelayCore<Element>(initial: [], bufferSize: 0)

    public init() {}

    public func accept(_ event: Element) {
        core.accept(event)
    }

    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element {
        core.subscribe(observer)
    }

    public func asObservable() -> Observable<Element> {
        Observable.create { observer in self.core.subscribe(observer) }
    }
}

/// RxRelay: `BehaviorRelay<Element>`.
public final class BehaviorRelay<Element>: ObservableType {
    private let core: RelayCore<Element>

    public init(value: Element) {
        core = RelayCore(initial: [value], bufferSize: 1)
    }

    public var value: Element {
        core.latest!
    }

    public func accept(_ event: Element) {
        core.accept(event)
    }

    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element {
        core.subscribe(observer)
    }

    public func asObservable() -> Observable<Element> {
        Observable.create { observer in self.core.subscribe(observer) }
    }
}

/// RxRelay: `ReplayRelay<Element>`.
public final class ReplayRelay<Element>: ObservableType {
    private let core: RelayCore<Element>

    private init(bufferSize: Int) {
        core = RelayCore(initial: [], bufferSize: bufferSize)
    }

    public static func create(bufferSize: Int) -> ReplayRelay<Element> {
        ReplayRelay(bufferSize: bufferSize)
    }

    public static func createUnbound() -> ReplayRelay<Element> {
        ReplayRelay(bufferSize: Int.max)
    }

    public func accept(_ event: Element) {
        core.accept(event)
    }

    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element {
        core.subscribe(observer)
    }

    public func asObservable() -> Observable<Element> {
        Observable.create { observer in self.core.subscribe(observer) }
    }
}

extension ObservableType {
    /// RxRelay: `bind(to:)` for publish relays.
    public func bind(to relays: PublishRelay<Element>...) -> Disposable {
        bind { element in relays.forEach { $0.accept(element) } }
    }

    /// RxRelay: `bind(to:)` for behavior relays.
    public func bind(to relays: BehaviorRelay<Element>...) -> Disposable {
        bind { element in relays.forEach { $0.accept(element) } }
    }

    /// RxRelay: `bind(to:)` for replay relays.
    public func bind(to relays: ReplayRelay<Element>...) -> Disposable {
        bind { element in relays.forEach { $0.accept(element) } }
    }

    private func bind(_ accept: @escaping (Element) -> Void) -> Disposable {
        subscribe { event in
            if case .next(let element) = event { accept(element) }
        }
    }
}
