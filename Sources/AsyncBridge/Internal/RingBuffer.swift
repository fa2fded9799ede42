/// A first-in, first-out queue on a growable ring: appending and taking the first element are
/// O(1) and allocate nothing once the ring is large enough. It keeps its capacity when
/// emptied, so two rings swapped back and forth (a consumer's batch and its producer's
/// buffer) stop allocating after the first few rounds.
///
/// ```swift
/// var queue = RingBuffer<Int>()
/// queue.append(1); queue.append(2)
/// queue.removeFirst()   // 1
/// ```
@usableFromInline
struct RingBuffer<Element> {
    /// `nil` marks a free slot. The count is a power of two (or zero), so an index wraps with
    /// a mask.
    @usableFromInline var slots: ContiguousArray<Element?> = []
    /// The slot of the first element.
    @usableFromInline var head = 0
    @usableFromInline var count = 0

    @inlinable
    init() {}

    @inlinable
    var isEmpty: Bool { count == 0 }

    /// Adds `element` at the end.
    @inlinable
    mutating func append(_ element: Element) {
        if count == slots.count { grow() }
        slots[(head &+ count) & (slots.count &- 1)] = element
        count &+= 1
    }

    /// Takes the first element; the queue must not be empty.
    @inlinable
    mutating func removeFirst() -> Element {
        precondition(count > 0, "Internal inconsistency: removeFirst() on an empty RingBuffer")
        let element = slots[head].take().unsafelyUnwrapped
        head = (head &+ 1) & (slots.count &- 1)
        count &-= 1
        return element
    }

    /// Takes the first element, or returns `nil` when the queue is empty.
    @inlinable
    mutating func popFirst() -> Element? {
        count == 0 ? nil : removeFirst()
    }

    /// Doubles the capacity (at least 16 slots), moving the elements to the front.
    /// Inlinable so that it is specialised: unspecialised, moving each element costs generic
    /// metadata lookups.
    @inlinable @inline(never)
    mutating func grow() {
        let oldCapacity = slots.count, head = head, count = count
        var grown = ContiguousArray<Element?>(repeating: nil, count: Swift.max(16, oldCapacity * 2))
        if count > 0 {
            let firstPart = Swift.min(count, oldCapacity - head)
            grown.withUnsafeMutableBufferPointer { destination in
                slots.withUnsafeMutableBufferPointer { source in
                    // Swaps the occupied slots with the new ring's `nil`s.
                    let from = source.baseAddress!, to = destination.baseAddress!
                    for offset in 0..<firstPart { swap(&to[offset], &from[head + offset]) }
                    for offset in 0..<(count - firstPart) { swap(&to[firstPart + offset], &from[offset]) }
                }
            }
        }
        slots = grown
        self.head = 0
    }
}

extension RingBuffer: Sendable where Element: Sendable {}
