/// The package's one first-in, first-out queue, on a growable ring: appending and taking the
/// first element are O(1) and allocate nothing once the ring is large enough. Every queue of
/// the package is one (consumer buffers, zip, `delay`, `receive(on:)`, the Combine bridge,
/// which reaches it through ``SharedQueue``).
///
/// Memory: a slot is one `Element` (no optional, no enum around it), and the slots past the
/// occupied ones are never written, so the pages of a large ring that values have not reached
/// yet cost no memory. The ring doubles when full (16 slots at first), moving its elements.
///
/// An emptied ring keeps up to ``retainedCapacity`` slots, so two rings swapped back and forth
/// (a consumer's batch and its producer's buffer) stop allocating after the first few rounds;
/// a larger one, left by a burst, is released when it empties.
///
/// A value type with copy-on-write storage, like `Array`: a copy shares the storage until
/// either side changes.
///
/// ```swift
/// var queue = RingBuffer<Int>()
/// queue.append(1); queue.append(2)
/// queue.removeFirst()   // 1
/// ```
@usableFromInline
struct RingBuffer<Element> {
    /// `nil` until the first append, and again once a ring of more than `retainedCapacity`
    /// slots empties.
    @usableFromInline var storage: RingStorage<Element>?

    /// The most slots an emptied ring keeps.
    @inlinable static var retainedCapacity: Int { 1_024 }

    /// An empty queue; it allocates at the first append.
    ///
    /// ```swift
    /// var queue = RingBuffer<Int>()
    /// ```
    @inlinable
    init() {}

    /// The number of elements.
    ///
    /// ```swift
    /// queue.count
    /// ```
    @inlinable
    var count: Int { storage?.count ?? 0 }

    /// Whether there is no element.
    ///
    /// ```swift
    /// queue.isEmpty
    /// ```
    @inlinable
    var isEmpty: Bool { count == 0 }

    /// The slots allocated (zero before the first append): what the ring holds in memory.
    ///
    /// ```swift
    /// queue.capacity   // 16 after the first append
    /// ```
    @inlinable
    var capacity: Int { storage?.capacity ?? 0 }

    /// Adds `element` at the end. Always inlined: the per-value path of every buffer, whose
    /// slow path (``reallocate()``) is out of line.
    ///
    /// ```swift
    /// queue.append(3)
    /// ```
    @inlinable @inline(__always)
    mutating func append(_ element: Element) {
        if _slowPath(storage == nil || !isKnownUniquelyReferenced(&storage!) || storage.unsafelyUnwrapped.isFull) {
            reallocate()
        }
        storage.unsafelyUnwrapped.append(element)
    }

    /// Takes the first element; the queue must not be empty.
    ///
    /// ```swift
    /// let first = queue.removeFirst()
    /// ```
    @inlinable
    mutating func removeFirst() -> Element {
        precondition(count > 0, "Internal inconsistency: removeFirst() on an empty RingBuffer")
        if _slowPath(!isKnownUniquelyReferenced(&storage!)) { reallocate() }
        let storage = storage.unsafelyUnwrapped
        let element = storage.removeFirst()
        if storage.count == 0 && storage.capacity > Self.retainedCapacity { self.storage = nil }
        return element
    }

    /// Takes the first element, or returns `nil` when the queue is empty.
    ///
    /// ```swift
    /// while let value = queue.popFirst() { print(value) }
    /// ```
    @inlinable
    mutating func popFirst() -> Element? {
        count == 0 ? nil : removeFirst()
    }

    /// The first element, left in the queue; `nil` when the queue is empty.
    ///
    /// ```swift
    /// queue.first   // 2
    /// ```
    @inlinable
    var first: Element? {
        guard let storage, storage.count > 0 else { return nil }
        return storage.slots[storage.head]
    }

    /// Takes the element `offset` places after the first, moving the ones behind it up:
    /// O(`count - offset`).
    ///
    /// ```swift
    /// queue.remove(at: 1)   // the second element
    /// ```
    @inlinable
    mutating func remove(at offset: Int) -> Element {
        precondition(offset >= 0 && offset < count, "Internal inconsistency: remove(at:) outside the RingBuffer")
        if offset == 0 { return removeFirst() }
        if _slowPath(!isKnownUniquelyReferenced(&storage!)) { reallocate() }
        return storage.unsafelyUnwrapped.remove(at: offset)
    }

    /// Empties the queue and returns what it held, so that the caller can release the
    /// elements later (outside a lock).
    ///
    /// ```swift
    /// let dropped = queue.takeAll()
    /// ```
    @inlinable
    mutating func takeAll() -> RingBuffer<Element> {
        defer { storage = nil }
        return self
    }

    /// Gives the queue storage of its own with room for one more element: the same capacity
    /// for a shared one that has room, double (at least 16 slots) for a full one. Its
    /// elements move when the storage was this queue's alone, and are copied otherwise.
    /// Inlinable so that it is specialised: unspecialised, moving each element costs generic
    /// metadata lookups.
    @inlinable @inline(never)
    mutating func reallocate() {
        let isUnique = isKnownUniquelyReferenced(&storage)
        guard let old = storage else {
            storage = RingStorage(capacity: 16)
            return
        }
        let oldCapacity = old.capacity
        let capacity = old.isFull ? oldCapacity * 2 : oldCapacity
        let grown = RingStorage<Element>(capacity: capacity)
        let head = old.head, count = old.count, from = old.slots, to = grown.slots
        // The occupied slots run from `head` to the end, then from the start.
        let firstPart = Swift.min(count, oldCapacity - head)
        if isUnique {
            to.moveInitialize(from: from + head, count: firstPart)
            (to + firstPart).moveInitialize(from: from, count: count - firstPart)
        } else {
            to.initialize(from: from + head, count: firstPart)
            (to + firstPart).initialize(from: from, count: count - firstPart)
        }
        if isUnique { old.count = 0 }  // moved out: its deinit has nothing to release
        grown.count = count
        storage = grown
    }
}

extension RingBuffer: @unchecked Sendable where Element: Sendable {
    // Sendable as `Array` is: copies share the storage only to read it, and every change
    // first gives the changing copy storage of its own (copy-on-write).
}

/// The slots of a ``RingBuffer``: `count` initialised elements from `head`, wrapping at the
/// end; the other slots are uninitialised memory, never written before an element goes there.
@usableFromInline
final class RingStorage<Element> {
    /// `capacity` slots, a power of two, so that an index wraps with a mask.
    @usableFromInline let slots: UnsafeMutablePointer<Element>
    @usableFromInline let capacity: Int
    /// The slot of the first element. Changed only by the one ring that owns this storage
    /// (copy-on-write), hence unchecked: a dynamic exclusivity check per value would cost
    /// more than the rest of an append.
    @exclusivity(unchecked) @usableFromInline var head = 0
    @exclusivity(unchecked) @usableFromInline var count = 0

    /// New storage of `capacity` slots (a power of two), empty.
    @inlinable
    init(capacity: Int) {
        slots = .allocate(capacity: capacity)
        self.capacity = capacity
    }

    @inlinable
    var isFull: Bool { count == capacity }

    /// Adds `element` after the last one; there must be room.
    @inlinable
    func append(_ element: Element) {
        (slots + ((head &+ count) & (capacity &- 1))).initialize(to: element)
        count &+= 1
    }

    /// Takes the first element; there must be one.
    @inlinable
    func removeFirst() -> Element {
        let slot = head
        head = (slot &+ 1) & (capacity &- 1)
        count &-= 1
        return (slots + slot).move()
    }

    /// Takes the element `offset` places after the first (not the first), moving the ones
    /// behind it one slot up.
    @inlinable
    func remove(at offset: Int) -> Element {
        let mask = capacity &- 1
        let element = (slots + ((head &+ offset) & mask)).move()
        var index = offset
        while index &+ 1 < count {
            (slots + ((head &+ index) & mask)).moveInitialize(from: slots + ((head &+ index &+ 1) & mask), count: 1)
            index &+= 1
        }
        count &-= 1
        return element
    }

    deinit {
        let firstPart = Swift.min(count, capacity - head)
        (slots + head).deinitialize(count: firstPart)
        slots.deinitialize(count: count - firstPart)
        slots.deallocate()
    }
}
