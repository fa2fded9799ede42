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

    @inlinable
    init() {}

    @inlinable
    var count: Int { entries.count }

    @inlinable
    var isEmpty: Bool { entries.isEmpty }

    /// The subscriptions, oldest first.
    var subscriptions: [FlowSubscription] { entries.map(\.subscription) }

    @inlinable
    mutating func insert(_ id: UInt64, _ subscription: FlowSubscription) {
        entries.append(Entry(id: id, subscription: subscription))
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

    /// Removes the inner `id`, returning its subscription; `nil` if it is not here.
    @inlinable
    mutating func remove(_ id: UInt64) -> FlowSubscription? {
        guard let index = index(of: id) else { return nil }
        if index == entries.count - 1 { return entries.removeLast().subscription }
        return entries.remove(at: index).subscription
    }

    /// Removes the inner started last, which must be `id` (a starter's inner that finished
    /// during its subscribe: none can have started since).
    @inlinable
    mutating func removeLast(_ id: UInt64) {
        guard entries.last?.id == id else {
            preconditionFailure("Internal inconsistency: inner \(id) is not the last started")
        }
        entries.removeLast()
    }

    /// Removes the only inner, if any (`latest` has one at most).
    @inlinable
    mutating func removeOnly() -> FlowSubscription? {
        if entries.count > 1 {
            preconditionFailure("Internal inconsistency: removing the only inner of \(entries.count)")
        }
        return entries.popLast()?.subscription
    }

    /// Cancels every inner's subscription, oldest first.
    @inlinable
    func cancelAll() {
        for entry in entries { entry.subscription.cancel() }
    }
}
