// RxSwift+AsyncBridge.swift
import AsyncBridge
@preconcurrency import RxRelay   // RxSwift 6 does not mark its types Sendable
@preconcurrency import RxSwift

extension ObservableType where Element: Sendable {
    /// This observable as a flow. Each subscription to the flow subscribes to the observable;
    /// cancelling the flow's token disposes that subscription. Rx errors are untyped, hence
    /// `any Error`.
    func asFlow() -> Flow<Element, any Error> {
        let observable = asObservable()
        return Flow.create { emitter in
            // Rx's `from` and `repeatElement` emit before `subscribe` returns the disposable:
            // `take(while:)`, wired first, disposes them once nobody listens (a full `prefix`).
            let disposable = observable
                .take(while: { _ in !emitter.isCancelled })
                .subscribe { event in
                    switch event {
                    case .next(let element): emitter.send(element)
                    case .error(let error): emitter.fail(error)
                    case .completed: emitter.finish()
                    }
                }
            emitter.onCancel { disposable.dispose() }
        }
    }
}

extension Flow {
    /// This flow as an observable. Each subscription to the observable subscribes to the flow;
    /// disposing it cancels the flow's subscription (and runs the flow's cancel action).
    func asObservable() -> Observable<Element> {
        Observable.create { observer in
            // The flow starts on RxSwift's trampoline once this closure has returned, so that a
            // `take(1)` below holds the disposable before the first value; the token reaches it
            // before the flow runs, and cancelling it stops even a synchronous flow.
            let subscription = SingleAssignmentDisposable()
            let start = CurrentThreadScheduler.instance.schedule(()) { _ in
                _ = self.subscribe(onStart: { subscription.setDisposable(Disposables.create(with: $0.cancel)) }) { event in
                    switch event {
                    case .value(let value): observer.onNext(value)
                    case .finished: observer.onCompleted()
                    case .failure(let error): observer.onError(error)
                    }
                }
                return Disposables.create()
            }
            return Disposables.create(start, subscription)
        }
    }
}

extension PrimitiveSequenceType where Trait == SingleTrait, Element: Sendable {
    /// This single as a shared future: the first consumer subscribes to the single, and the Rx
    /// subscription is disposed when the last consumer leaves before the result.
    func asSharedFuture() -> SharedFuture<Element, any Error> {
        let single = primitiveSequence
        return SharedFuture { completion, onCancel in
            let disposable = single.subscribe(completion)
            onCancel { disposable.dispose() }
        }
    }
}

extension SharedFuture {
    /// This future as a single: subscribing consumes the future; disposing before the result
    /// cancels this consumer (and the work, if no other consumer waits for it).
    func asSingle() -> Single<Success> {
        Observable.create { observer in   // not Single.create: its observer is a closure, not Sendable
            let token = self.subscribe { result in
                switch result {
                case .success(let value):
                    observer.onNext(value)
                    observer.onCompleted()
                case .failure(let error):
                    observer.onError(error)
                }
            }
            return Disposables.create { token.cancel() }
        }
        .asSingle()
    }
}

// Relays: an RxRelay relay as a flow that cannot fail (`rxRelay.flow`, as `ourRelay.flow`), and
// a flow bound to an RxRelay relay (`flow.bind(to: rxRelay)`, as `flow.bind(to: ourRelay)`).

extension PublishRelay where Element: Sendable {
    var flow: Flow<Element, Never> { relayFlow(asObservable()) }
}

extension BehaviorRelay where Element: Sendable {
    var flow: Flow<Element, Never> { relayFlow(asObservable()) }
}

extension ReplayRelay where Element: Sendable {
    var flow: Flow<Element, Never> { relayFlow(asObservable()) }
}

private func relayFlow<Element: Sendable>(_ relay: Observable<Element>) -> Flow<Element, Never> {
    Flow.create { emitter in
        let disposable = relay.subscribe { event in
            if case .next(let element) = event { emitter.send(element) }   // a relay never ends
        }
        emitter.onCancel { disposable.dispose() }
    }
}

extension Flow where Failure == Never {
    func bind(to relay: PublishRelay<Element>) -> CancellationToken {
        subscribe(onValue: { relay.accept($0) }, onCompletion: { _ in })
    }

    func bind(to relay: BehaviorRelay<Element>) -> CancellationToken {
        subscribe(onValue: { relay.accept($0) }, onCompletion: { _ in })
    }

    func bind(to relay: ReplayRelay<Element>) -> CancellationToken {
        subscribe(onValue: { relay.accept($0) }, onCompletion: { _ in })
    }
}
