/// A flow shared among its subscribers that runs its upstream only when told to: subscribers
/// join at any time, and receive values once ``connect()`` has subscribed the upstream.
///
/// Useful to set up every subscriber before the work starts (so that none misses the first
/// values of a synchronous source), or to control the upstream's lifetime apart from theirs.
/// Made by `flow.publish()` or `flow.replay(_:)`.
///
/// ```swift
/// let shared = request.publish()
/// shared.flow.subscribe(onValue: { show($0) }, onCompletion: { _ in }).store(in: bag)
/// shared.flow.map(\.id).subscribe(onValue: { log($0) }, onCompletion: { _ in }).store(in: bag)
/// shared.connect().store(in: bag)   // one request, both subscribers
/// ```
///
/// - **Connections.** Each connection has a subject of its own (RxSwift's `publish()` and
///   `replay(_:)`: "the subject is cleared on connection disposal or in case the source
///   produces a terminal event"). A subscriber joins the running connection, or the next one
///   when none runs.
/// - **After the upstream completed**, its subscribers have got the completion, and the
///   next subscriber and the next ``connect()`` start a new connection: the upstream runs
///   again (as in RxSwift). Combine's `makeConnectable()` keeps one subject for good: a late
///   subscriber gets the completion, and connecting again sends nothing.
/// - **After a disconnect** (the token of ``connect()`` cancelled), the subscribers of that
///   connection receive nothing more, and no completion (as in RxSwift); subscribe again to
///   follow the next connection. Combine's subject outlives the disconnect, so its subscribers
///   follow the next connection. Chosen for RxSwift, as `share` does, so that an event an ended
///   connection was still delivering on another thread can never reach a later connection.
///
/// RxSwift: `ConnectableObservable`; Combine: `Publishers.Multicast` / `ConnectablePublisher`.
public struct ConnectableFlow<Element: Sendable, Failure: Error>: Sendable {
    @usableFromInline let storage: ShareStorage<Element, Failure>

    @inlinable
    init(upstream: Flow<Element, Failure>, replay: Int) {
        storage = ShareStorage(upstream: upstream, replay: replay, scope: .whileConnected)
    }

    /// The shared values: subscribing joins the current connection (or waits for the next)
    /// without connecting.
    ///
    /// ```swift
    /// connectable.flow.subscribe(onValue: { print($0) }, onCompletion: { _ in }).store(in: bag)
    /// ```
    ///
    /// RxSwift: the `ConnectableObservable` itself; Combine: the `ConnectablePublisher` itself.
    @inlinable
    public var flow: Flow<Element, Failure> {
        Flow { [storage] subscriber in storage.join(subscriber) }
    }

    /// Subscribes to ``flow`` with one handler for every event, without connecting.
    ///
    /// ```swift
    /// connectable.subscribe { event in print(event) }.store(in: bag)
    /// ```
    ///
    /// RxSwift: `subscribe(_:)`; Combine: `sink(receiveCompletion:receiveValue:)`.
    ///
    /// - Returns: a token that cancels the subscription (not the connection). Releasing it
    ///   does not cancel.
    @inlinable
    public func subscribe(_ onEvent: @escaping @Sendable (FlowEvent<Element, Failure>) -> Void) -> CancellationToken {
        flow.subscribe(onEvent)
    }

    /// Subscribes the upstream, once: its values go to every subscriber of ``flow``.
    ///
    /// Called while connected, it starts nothing and returns another token for the same
    /// connection (RxSwift returns the same connection; Combine's `Multicast` subscribes the
    /// upstream again). Cancelling any of its tokens ends the connection: the upstream is
    /// cancelled once, and the next `connect()` starts a new one. A token of a connection that
    /// has ended (completed, or disconnected) cancels nothing.
    ///
    /// ```swift
    /// let connection = connectable.connect()
    /// connection.cancel()   // disconnects
    /// ```
    ///
    /// RxSwift: `connect()`; Combine: `connect()`.
    ///
    /// - Returns: a token that disconnects. Releasing it does not disconnect.
    @inlinable
    public func connect() -> CancellationToken {
        let subject = storage.connect()
        // Weak: a token kept after its connection ended must not keep that connection's
        // subscribers; a subject that is gone is no connection's any more.
        return CancellationToken { [storage, weak subject] in
            if let subject { storage.disconnect(subject) }
        }
    }

    /// A flow that connects when its first subscriber arrives and disconnects when its last
    /// one leaves; the subscriber after that (or after the upstream completed) connects again.
    ///
    /// It counts only its own subscribers, but shares the connectable's connection: joining a
    /// connection made by ``connect()`` counts from there, and the last of its subscribers to
    /// leave ends that connection too (as in RxSwift).
    ///
    /// `flow.publish().refCount()` is `flow.share()`, and `flow.replay(n).refCount()` is
    /// `flow.share(replay: n)`: the same machinery.
    ///
    /// ```swift
    /// let location = manager.locations.publish().refCount()   // runs while someone watches
    /// ```
    ///
    /// RxSwift: `refCount()`; Combine: `autoconnect()`, which also connects at the first
    /// subscriber and disconnects when the last one cancels (OpenCombine's
    /// `Publishers.Autoconnect.willCancel()`).
    @inlinable
    public func refCount() -> Flow<Element, Failure> {
        Flow { [storage] subscriber in storage.subscribe(subscriber) }
    }
}

extension Flow {
    /// A connectable flow that shares one subscription to this flow among its subscribers,
    /// from ``ConnectableFlow/connect()`` on; what is sent before a subscriber joins, it misses.
    ///
    /// ```swift
    /// let ticks = timer.publish()
    /// ticks.flow.subscribe { print($0) }.store(in: bag)
    /// ticks.connect().store(in: bag)
    /// ```
    ///
    /// RxSwift: `publish()` (`multicast { PublishSubject() }`); Combine: `makeConnectable()`
    /// (`multicast { PassthroughSubject() }`; see ``ConnectableFlow`` for where they differ).
    @inlinable
    public func publish() -> ConnectableFlow<Element, Failure> {
        ConnectableFlow(upstream: self, replay: 0)
    }

    /// A connectable flow that shares one subscription to this flow, replaying to each new
    /// subscriber up to `count` of the latest values of the current connection.
    ///
    /// ```swift
    /// let log = lines.replay(10)
    /// log.connect().store(in: bag)
    /// log.flow.subscribe { print($0) }.store(in: bag)   // the last 10 lines, then the next
    /// ```
    ///
    /// RxSwift: `replay(_:)` (`multicast { ReplaySubject.create(bufferSize:) }`; the buffer
    /// goes with the connection); Combine: (none; `multicast { subject }` with a replaying
    /// subject of one's own).
    ///
    /// - Parameter count: How many of the latest values to replay; zero replays none (as
    ///   ``publish()``), negative is a precondition failure (README, "Durations and counts").
    @inlinable
    public func replay(_ count: Int) -> ConnectableFlow<Element, Failure> {
        checkCount(count, of: "replay(_:)", atLeast: 0)
        return ConnectableFlow(upstream: self, replay: count)
    }
}
