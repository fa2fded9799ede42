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

    @usableFromInline var entries: ContiguousArray<Entry> = []
    /// The subscription of the inner removed last, for the next inner to start.
    @usableFromInline var spare = FlowSubscription.Spare()

    @inlinable
    init() {}

    @inlinable
    var count: Int { entries.count }

    @inlinable
    var isEmpty: Bool { entries.isEmpty }

    /// The subscriptions, oldest first.
    var subscriptions: [FlowSubscription] { entries.map(\.subscription) }

    /// Adds the inner `id`, returning its subscription: the spare made anew when it can be.
    @inlinable
    mutating func insert(_ id: UInt64) -> FlowSubscription {
        let subscription = spare.take()
        entries.append(Entry(id: id, subscription: subscription))
        return subscription
    }

    @inlinable
    func index(of id: UInt64) -> Int? {
        var index = entries.count
        while index > 0 {
            index -= 1
            if entries[index].id == id { return index }
        }
        return nil
    }

    @inlinable
    func contains(_ id: UInt64) -> Bool {
        index(of: id) != nil
    }

    /// Removes the inner `id` (which has finished), returning its subscription, also kept as the
    /// spare; `nil` if it is not here.
    @inlinable
    mutating func remove(_ id: UInt64) -> FlowSubscription? {
        guard let index = index(of: id) else { return nil }
        let removed = index == entries.count - 1 ? entries.removeLast() : entries.remove(at: index)
        spare.keep(removed.subscription)
        return removed.subscription
    }

    /// Removes the inner started last, which must be `id` (a starter's inner that finished
    /// during its subscribe: none can have started since), keeping its subscription as the spare.
    @inlinable
    mutating func removeLast(_ id: UInt64) {
        guard entries.last?.id == id else {
            preconditionFailure("Internal inconsistency: inner \(id) is not the last started")
        }
        spare.keep(entries.removeLast().subscription)
    }

    /// Replaces the only inner, if any (`latest` has one at most), with `id`, returning both
    /// subscriptions. The new one is made from the spare before the replaced one is kept: that
    /// one is cancelled once unlocked, and can be made anew for the inner after.
    @inlinable
    mutating func replaceOnly(with id: UInt64) -> (started: FlowSubscription, replaced: FlowSubscription?) {
        if entries.count > 1 {
            preconditionFailure("Internal inconsistency: replacing the only inner of \(entries.count)")
        }
        let replaced = entries.popLast()?.subscription
        let started = insert(id)
        if let replaced { spare.keep(replaced) }
        return (started, replaced)
    }

    /// Cancels every inner's subscription, oldest first.
    @inlinable
    func cancelAll() {
        for entry in entries { entry.subscription.cancel() }
    }
}
