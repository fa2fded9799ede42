/// The latest values a subject keeps for the subscribers that join later: none for a publish
/// subject, one for a behavior subject, up to `capacity` for a replay subject.
///
/// A ring: appending to a full buffer overwrites the oldest value in place, so a send
/// allocates nothing once the buffer is full. The overwritten value is handed back to the
/// caller, which releases it after unlocking (its `deinit` is user code).
///
/// ```swift
/// var buffer = ReplayBuffer<Int>(capacity: 2)
/// _ = buffer.append(1); _ = buffer.append(2)
/// let evicted = buffer.append(3)   // 1
/// buffer.elements                  // [2, 3]
/// ```
@usableFromInline
struct ReplayBuffer<Element> {
    /// The most values kept; `0` keeps none.
    @usableFromInline let capacity: Int
    @usableFromInline var storage: [Element] = []
    /// The index of the oldest value once the buffer is full (`0` until then).
    @usableFromInline var start = 0

    @inlinable
    init(capacity: Int, initial: [Element] = []) {
        precondition(capacity >= 0, "a replay buffer cannot hold a negative number of values")
        self.capacity = capacity
        for value in initial { _ = append(value) }
    }

    /// Keeps `value` as the latest, and returns the value that no longer fits, if any. With a
    /// capacity of `0` it keeps nothing and returns `nil`: the caller still holds `value`.
    @inlinable
    mutating func append(_ value: Element) -> Element? {
        if storage.count < capacity {
            storage.append(value)
            return nil
        }
        guard capacity > 0 else { return nil }
        var evicted = value
        swap(&storage[start], &evicted)
        start += 1
        if start == capacity { start = 0 }
        return evicted
    }

    /// The values kept, oldest first.
    @inlinable
    var elements: [Element] {
        start == 0 ? storage : Array(storage[start...] + storage[..<start])
    }

    /// Whether no value is kept.
    @inlinable
    var isEmpty: Bool { storage.isEmpty }

    /// The latest value kept.
    @inlinable
    var last: Element? {
        storage.isEmpty ? nil : storage[(start + storage.count - 1) % storage.count]
    }
}

extension ReplayBuffer: Sendable where Element: Sendable {}
