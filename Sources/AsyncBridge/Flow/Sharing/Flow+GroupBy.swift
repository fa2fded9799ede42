/// One group of ``Flow/groupBy(_:)``: the key its values share, and the flow of those values.
///
/// ```swift
/// messages.groupBy(\.roomID).subscribe(onValue: { room in
///     room.flow.subscribe(onValue: { show($0, in: room.key) }, onCompletion: { _ in }).store(in: bag)
/// }, onCompletion: { _ in }).store(in: bag)
/// ```
///
/// RxSwift: `GroupedObservable`; Combine: (none).
public struct FlowGroup<Key: Hashable & Sendable, Element: Sendable, Failure: Error>: Sendable {
    /// The key every value of the group has.
    ///
    /// ```swift
    /// print(group.key)
    /// ```
    public let key: Key

    /// The group's values from when it is subscribed, then the upstream's completion. Live:
    /// what the group receives while nobody subscribes to it is lost.
    ///
    /// ```swift
    /// group.flow.subscribe(onValue: { print($0) }, onCompletion: { _ in }).store(in: bag)
    /// ```
    public let flow: Flow<Element, Failure>

    @inlinable
    init(key: Key, flow: Flow<Element, Failure>) {
        self.key = key
        self.flow = flow
    }
}

extension Flow {
    /// Splits the values into groups by `key`: a ``FlowGroup`` is sent when a key first
    /// appears, and each value goes to the flow of its key's group.
    ///
    /// ```swift
    /// let byRoom = messages.groupBy { $0.roomID }   // Flow<FlowGroup<RoomID, Message>, Failure>
    /// ```
    ///
    /// RxSwift: `groupBy(keySelector:)`; Combine: none.
    ///
    /// A group is live: its values are lost while nobody subscribes, but a subscription made in
    /// the handler that receives the group gets its first value. The completion reaches every
    /// group, then this flow. The upstream runs while this subscription or any group's is
    /// alive, and is cancelled when the last goes; a group subscribed after that gets nothing.
    @inlinable
    public func groupBy<Key: Hashable & Sendable>(
        _ key: @escaping @Sendable (Element) -> Key
    ) -> Flow<FlowGroup<Key, Element, Failure>, Failure> {
        let upstream = self
        return Flow<FlowGroup<Key, Element, Failure>, Failure> { subscriber in
            let lifetime = GroupByLifetime(subscriber)
            // Touched only by the upstream's deliveries, which are serialised.
            let groups = SerialState<[Key: SubjectStorage<Element, Failure>]>([:])
            upstream.run(FlowSubscriber(
                subscription: lifetime.upstream,
                receive: { value in
                    let groupKey = key(value)
                    if let group = groups.value[groupKey] {
                        group.send(value)
                    } else {
                        let group = SubjectStorage<Element, Failure>(bufferSize: 0)
                        groups.value[groupKey] = group
                        lifetime.deliver(FlowGroup(key: groupKey, flow: lifetime.flow(of: group)))
                        group.send(value)
                    }
                    return lifetime.upstream.isCancelled ? .stop : .more
                },
                complete: { completion in
                    let ended = groups.value
                    groups.value = [:]
                    lifetime.complete(completion, groups: ended.values)
                }
            ))
        }
    }
}

/// What keeps a `groupBy`'s upstream subscribed: its own subscriber, until it leaves, and
/// the subscribers of its groups, counted. The upstream is cancelled when the last of them
/// goes.
///
/// Its groups' flows hold this object (not the key closure or the other groups), so a
/// ``FlowGroup`` kept by the user keeps little alive.
@usableFromInline
final class GroupByLifetime<Key: Hashable & Sendable, Element: Sendable, Failure: Error>: Sendable {
    @usableFromInline typealias Group = FlowGroup<Key, Element, Failure>

    @usableFromInline
    struct State: Sendable {
        /// The subscriber of the groups; `nil` once it left, or once completed.
        @usableFromInline var downstream: FlowSubscriber<Group, Failure>?
        /// The live subscriptions to the groups.
        @usableFromInline var groupSubscribers = 0
        /// The upstream completed or was cancelled.
        @usableFromInline var ended = false

        @inlinable
        init(downstream: FlowSubscriber<Group, Failure>) {
            self.downstream = downstream
        }
    }

    /// Not a child of the downstream's subscription: it outlives it while groups are watched.
    @usableFromInline let upstream = FlowSubscription()
    @usableFromInline let state: Lock<State>

    @inlinable
    init(_ downstream: FlowSubscriber<Group, Failure>) {
        state = .make(State(downstream: downstream))
        // Strong: the subscription's actions are released when it ends.
        downstream.subscription.onCancel { self.downstreamLeft() }
    }

    /// Sends a new group to the subscriber, unless it left; it leaves when it wants no more.
    @inlinable
    func deliver(_ group: Group) {
        guard let downstream = state.withLock({ $0.downstream }) else { return }
        if downstream.receive(group) == .stop { downstreamLeft() }
    }

    /// The flow of a group: its subscribers are counted while they live.
    @inlinable
    func flow(of group: SubjectStorage<Element, Failure>) -> Flow<Element, Failure> {
        Flow { [self] subscriber in
            let counted = state.withLock { state -> Bool in
                guard !state.ended else { return false }
                state.groupSubscribers += 1
                return true
            }
            if counted { subscriber.subscription.onCancel { self.groupSubscriberLeft() } }
            group.subscribe(subscriber)
        }
    }

    /// The upstream completed: every group, then the subscriber, get `completion`. The
    /// subscriber is taken after the groups' handlers have run: one that cancelled it meanwhile
    /// gets nothing.
    @inlinable
    func complete(_ completion: FlowCompletion<Failure>, groups: some Sequence<SubjectStorage<Element, Failure>>) {
        state.withLock { $0.ended = true }
        for group in groups { group.complete(completion) }
        state.withLock { $0.downstream.take() }?.complete(completion)
    }

    @inlinable
    func downstreamLeft() {
        let (left, cancel) = state.withLock { state -> (FlowSubscriber<Group, Failure>?, Bool) in
            (state.downstream.take(), endIfUnwatched(&state))
        }
        _ = left  // released here, outside the lock
        if cancel { upstream.cancel() }
    }

    @inlinable
    func groupSubscriberLeft() {
        let cancel = state.withLock { state -> Bool in
            state.groupSubscribers -= 1
            return endIfUnwatched(&state)
        }
        if cancel { upstream.cancel() }
    }

    /// Whether nobody watches any more, so the caller cancels the upstream (once).
    @inlinable
    func endIfUnwatched(_ state: inout State) -> Bool {
        guard !state.ended, state.downstream == nil, state.groupSubscribers == 0 else { return false }
        state.ended = true
        return true
    }
}
