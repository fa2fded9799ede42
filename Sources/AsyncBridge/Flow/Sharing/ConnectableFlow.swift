/// A flow shared among its subscribers that runs its upstream only when told to: subscribers
/// join at any time, and receive values once ``connect()`` has subscribed the upstream.
///
/// Made by `flow.publish()` or `flow.replay(_:)`: set up every subscriber before the work starts.
///
/// ```swift
/// let shared = request.publish()
/// shared.flow.subscribe(onValue: { show($0) }, onCompletion: { _ in }).store(in: bag)
/// shared.connect().store(in: bag)
/// ```
///
/// RxSwift: `ConnectableObservable`; Combine: `Publishers.Multicast` / `ConnectablePublisher`.
///
/// Each connection has a subject of its own; a subscriber joins the running connection, or the
/// next one. After the upstream completed, the next subscriber and ``connect()`` start a new
/// connection. After a disconnect its subscribers receive nothing more, not even a completion.
public struct ConnectableFlow<Element: Sendable, Failure: Error>: Sendable {
    @usableFromInline let storage: ShareStorage<Element, Failure>

    @inlinable
    init(upstream: Flow<Element, Failure>, replay: Int) {
        storage = ShareStorage(upstream: upstream, replay: replay, scope: .whileConnected)
    }

    /// The shared values: subscribing joins the current connection (or the next) without
    /// connecting.
    ///
    /// ```swift
    /// connectable.flow.subscribe(onValue: { print($0) }, onCompletion: { _ in }).store(in: bag)
    /// ```
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
    /// - Returns: a token that cancels the subscription, not the connection; releasing it does not.
    @inlinable
    public func subscribe(_ onEvent: @escaping @Sendable (FlowEvent<Element, Failure>) -> Void) -> CancellationToken {
        flow.subscribe(onEvent)
    }

    /// Subscribes the upstream, once: its values go to every subscriber of ``flow``.
    ///
    /// ```swift
    /// let connection = connectable.connect()
    /// connection.cancel()   // disconnects
    /// ```
    ///
    /// RxSwift: `connect()`; Combine: `connect()`.
    ///
    /// Called while connected, it returns another token for the same connection. Cancelling any
    /// token ends the connection; a token of an ended connection cancels nothing.
    ///
    /// - Returns: a token that disconnects. Releasing it does not disconnect.
    @inlinable
    public func connect() -> CancellationToken {
        let subject = storage.connect()
        // Weak: a token kept after its connection ended must not keep its subscribers alive.
        return CancellationToken { [storage, weak subject] in
            if let subject { storage.disconnect(subject) }
        }
    }

    /// A flow that connects at its first subscriber and disconnects when its last one leaves.
    ///
    /// ```swift
    /// let location = manager.locations.publish().refCount()   // runs while someone watches
    /// ```
    ///
    /// RxSwift: `refCount()`; Combine: `autoconnect()`.
    ///
    /// It counts only its own subscribers but shares the connection: the last of them to leave
    /// ends a connection made by ``connect()`` too. `publish().refCount()` is `share()`.
    @inlinable
    public func refCount() -> Flow<Element, Failure> {
        Flow { [storage] subscriber in storage.subscribe(subscriber) }
    }
}

extension Flow {
    /// A connectable flow sharing one subscription to this flow from
    /// ``ConnectableFlow/connect()`` on; a subscriber misses what was sent before it joined.
    ///
    /// ```swift
    /// let ticks = timer.publish()
    /// ticks.flow.subscribe { print($0) }.store(in: bag)
    /// ticks.connect().store(in: bag)
    /// ```
    ///
    /// RxSwift: `publish()`; Combine: `makeConnectable()`.
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
    /// RxSwift: `replay(_:)`; Combine: none.
    ///
    /// - Parameter count: How many of the latest values to replay; zero replays none, negative
    ///   is a precondition failure.
    @inlinable
    public func replay(_ count: Int) -> ConnectableFlow<Element, Failure> {
        checkCount(count, of: "replay(_:)", atLeast: 0)
        return ConnectableFlow(upstream: self, replay: count)
    }
}
