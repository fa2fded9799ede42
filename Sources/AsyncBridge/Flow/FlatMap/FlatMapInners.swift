/// The inners that run: their ids (in the order they started) and subscriptions. A linear
/// search finds one: there are at most `maxConcurrent`, and one for `latest`, `first` and
/// `concatMap`; the latest started is looked at first.
@usableFromInline
struct FlatMapInners: Sendable {
    @usableFromInline
    struct Entry: Sendable {
        @usableFromInline let id: UInt64
        @usableFromInline let subscription: FlowSubscription

        @inlinable
        init(id: UInt64, subscription: FlowSubscription) {
            self.id = id
            self.subscription = subscription
        }
    }

    /// The inner that started first of those running, kept inline: most flatMaps run one at a
    /// time (`latest`, `first`, `concatMap`, and `flatMap` over inners that finish at once), and
    /// then no array is touched. `nil` only when none runs.
    @usableFromInline var oldest: Entry?
    /// The others, in the order they started.
    @usableFromInline var others: ContiguousArray<Entry> = []
    /// The subscription of the inner removed last, for the next inner to start.
    @usableFromInline var spare = FlowSubscription.Spare()

    @inlinable
    init() {}

    @inlinable
    var count: Int { oldest == nil ? 0 : 1 + others.count }

    @inlinable
    var isEmpty: Bool { oldest == nil }

    /// The subscriptions, oldest first.
    var subscriptions: [FlowSubscription] {
        guard let oldest else { return [] }
        return [oldest.subscription] + others.map(\.subscription)
    }

    /// Adds the inner `id`, returning its subscription: the spare made anew when it can be.
    @inlinable
    mutating func insert(_ id: UInt64) -> FlowSubscription {
        let subscription = spare.take()
        if oldest == nil {
            oldest = Entry(id: id, subscription: subscription)
        } else {
            others.append(Entry(id: id, subscription: subscription))
        }
        return subscription
    }

    /// The index in `others` of the inner `id`, the latest started looked at first; `nil` if it
    /// is not there.
    @inlinable
    func othersIndex(of id: UInt64) -> Int? {
        var index = others.count
        while index > 0 {
            index -= 1
            if others[index].id == id { return index }
        }
        return nil
    }

    @inlinable
    func contains(_ id: UInt64) -> Bool {
        othersIndex(of: id) != nil || oldest?.id == id
    }

    /// Removes the inner `id` (which has finished), returning its subscription, also kept as the
    /// spare; `nil` if it is not here.
    @inlinable
    mutating func remove(_ id: UInt64) -> FlowSubscription? {
        let removed: Entry
        if let index = othersIndex(of: id) {
            removed = index == others.count - 1 ? others.removeLast() : others.remove(at: index)
        } else if let found = oldest, found.id == id {
            removed = found
            oldest = others.isEmpty ? nil : others.removeFirst()
        } else {
            return nil
        }
        spare.keep(removed.subscription)
        return removed.subscription
    }

    /// Removes the inner started last, which must be `id` (a starter's inner that finished
    /// during its subscribe: none can have started since), keeping its subscription as the spare.
    @inlinable
    mutating func removeLast(_ id: UInt64) {
        guard (others.last ?? oldest)?.id == id else {
            preconditionFailure("Internal inconsistency: inner \(id) is not the last started")
        }
        spare.keep(others.isEmpty ? oldest.take()!.subscription : others.removeLast().subscription)
    }

    /// Replaces the only inner, if any (`latest` has one at most), with `id`, returning both
    /// subscriptions. The new one is made from the spare before the replaced one is kept: that
    /// one is cancelled once unlocked, and can be made anew for the inner after.
    @inlinable
    mutating func replaceOnly(with id: UInt64) -> (started: FlowSubscription, replaced: FlowSubscription?) {
        if !others.isEmpty {
            preconditionFailure("Internal inconsistency: replacing the only inner of \(count)")
        }
        let replaced = oldest.take()?.subscription
        let started = insert(id)
        if let replaced { spare.keep(replaced) }
        return (started, replaced)
    }

    /// Cancels every inner's subscription, oldest first.
    @inlinable
    func cancelAll() {
        oldest?.subscription.cancel()
        for entry in others { entry.subscription.cancel() }
    }
}
