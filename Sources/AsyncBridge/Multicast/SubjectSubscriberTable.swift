/// The subscribers of a subject: who has registered, and who has joined, in the order they
/// joined. Registering, joining and leaving cost the same whatever the number of others.
///
/// - A registered subscriber has a **slot** in ``entries``, found from its
///   ``SubjectSubscriberID`` (slots of subscribers that left are reused, and the id's serial
///   tells a slot's subscriber from the one it had before).
/// - A joined subscriber also has a **position** in ``list``, which the deliverer goes through
///   with no lock held. Leaving leaves a hole: ``hole``, a stand-in marked removed, which the
///   deliverer skips as it skips any subscriber removed during a delivery (so going through
///   the list costs no more per subscriber). Holes at the end are dropped at once, and the
///   list is compacted when they grow to half of it.
/// - While the deliverer goes through the list (it has been **lent**, for a value or the
///   completion), the list is never changed: the first change makes a new list, and the lent
///   one is kept in ``retired`` until the deliverer gives it back. So a change costs a copy
///   only while an event is being delivered, at most once per event, which costs no more than
///   the delivery itself.
///
/// Every method is called under the subject's lock. A list or subscriber it hands back is for
/// the caller to release after unlocking.
///
/// ```swift
/// var table = SubjectSubscriberTable<Int, Never>()
/// let subscriber = SubjectSubscriber(downstream, id: table.register())
/// _ = table.admit(subscriber)
/// let recipients = table.lend()   // deliver, then:
/// _ = table.giveBack()
/// ```
///
/// Unchecked because ``SubjectSubscriberList`` is a `ManagedBuffer`; sound because the table
/// lives in the subject's lock, and a lent list is only read, by the deliverer, until given back.
@usableFromInline
struct SubjectSubscriberTable<Element, Failure: Error>: @unchecked Sendable {
    @usableFromInline typealias Subscriber = SubjectSubscriber<Element, Failure>
    @usableFromInline typealias List = SubjectSubscriberList<Element, Failure>

    /// One slot: a registered subscriber, or a free slot.
    @usableFromInline
    struct Entry: Sendable {
        /// The serial of the slot's subscriber; 0 when the slot is free.
        @usableFromInline var serial: UInt64
        /// The subscriber's position in ``list`` once it has joined, ``joining`` before; for a
        /// free slot, the next free slot (or -1).
        @usableFromInline var position: Int

        @inlinable
        init(serial: UInt64, position: Int) {
            self.serial = serial
            self.position = position
        }
    }

    /// The position of a subscriber that has registered but not joined.
    @inlinable static var joining: Int { -1 }

    /// The joined subscribers, in the order they joined, with holes.
    @usableFromInline var list = List.make(capacity: 0)
    /// Whether ``list`` is the one lent to the deliverer.
    @usableFromInline var isListLent = false
    /// The list lent to the deliverer, once replaced: kept until ``giveBack()``.
    @usableFromInline var retired: List?
    /// How many positions of ``list`` hold ``hole``.
    @usableFromInline var holes = 0
    /// What fills the position of a subscriber that left; made at the first one.
    @usableFromInline var hole: Subscriber?
    @usableFromInline var entries: ContiguousArray<Entry> = []
    /// The first free slot, or -1.
    @usableFromInline var firstFree = -1
    @usableFromInline var lastSerial: UInt64 = 0

    @inlinable
    init() {}

    // MARK: Registering and joining

    /// A slot for a new subscriber, which has not joined yet.
    @inlinable
    mutating func register() -> SubjectSubscriberID {
        lastSerial &+= 1
        let entry = Entry(serial: lastSerial, position: Self.joining)
        let slot: Int
        if firstFree >= 0 {
            slot = firstFree
            firstFree = entries[slot].position
            entries[slot] = entry
        } else {
            slot = entries.count
            entries.append(entry)
        }
        return SubjectSubscriberID(slot: slot, serial: lastSerial)
    }

    /// Whether the subscriber `id` has registered and not joined nor left.
    @inlinable
    func isJoining(_ id: SubjectSubscriberID) -> Bool {
        let entry = entries[id.slot]
        return entry.serial == id.serial && entry.position == Self.joining
    }

    /// The subscriber joins, at the end of the list, unless it left. Returns the list it
    /// replaced, if one was.
    @inlinable
    mutating func admit(_ subscriber: Subscriber) -> List? {
        guard isJoining(subscriber.id) else { return nil }
        var replaced: List?
        if isListLent || list.count == list.room {
            replaced = rebuild(capacity: Swift.max(4, (list.count - holes) * 2))
        }
        entries[subscriber.id.slot].position = list.append(subscriber)
        return replaced
    }

    /// The subscriber `id` leaves, if it is here: its slot is freed. Returns it if it had
    /// joined, and the list it was in if that was replaced.
    @inlinable
    mutating func remove(_ id: SubjectSubscriberID) -> (removed: Subscriber?, replaced: List?) {
        guard id.slot < entries.count, entries[id.slot].serial == id.serial else { return (nil, nil) }
        guard entries[id.slot].position != Self.joining else {
            free(id.slot)  // its subscription event, still queued, holds it
            return (nil, nil)
        }
        var replaced: List?
        if isListLent { replaced = rebuild(capacity: list.room) }
        let position = entries[id.slot].position
        free(id.slot)
        let removed: Subscriber
        if position == list.count - 1 {
            removed = list.removeLast()
            if let hole { holes -= list.dropTrailing(hole) }
        } else {
            removed = list.replace(at: position, with: hole ?? makeHole())
            holes += 1
        }
        if holes > 16, holes * 2 > list.count {
            assert(replaced == nil, "Internal inconsistency: a list rebuilt twice in one removal")
            replaced = rebuild(capacity: Swift.max(4, (list.count - holes) * 2))
        }
        return (removed, replaced)
    }

    /// Whether the subscriber `id` was still joining: if so it leaves without joining (a late
    /// subscriber to a completed subject, about to get the completion).
    @inlinable
    mutating func leave(_ id: SubjectSubscriberID) -> Bool {
        guard isJoining(id) else { return false }
        free(id.slot)
        return true
    }

    /// Every joined subscriber leaves (the completion was delivered to them). Returns their
    /// list, unless it is lent (then it is given back by ``giveBack()``).
    @inlinable
    mutating func removeAllJoined() -> List? {
        for slot in entries.indices where entries[slot].serial != 0 && entries[slot].position != Self.joining {
            free(slot)
        }
        let replaced = list
        list = List.make(capacity: 0)
        holes = 0
        guard isListLent else { return replaced }
        retired = replaced
        return nil
    }

    // MARK: Delivering

    /// The list, for the deliverer to go through with no lock held until ``giveBack()``.
    @inlinable
    mutating func lend() -> Unmanaged<List> {
        assert(retired == nil, "Internal inconsistency: a retired list outlived its delivery")
        isListLent = true
        return .passUnretained(list)
    }

    /// The deliverer is done with the list it was lent. Returns it if it has been replaced.
    @inlinable
    mutating func giveBack() -> List? {
        isListLent = false
        defer { retired = nil }
        return retired
    }

    // MARK: Internals

    @inlinable @inline(never)
    mutating func makeHole() -> Subscriber {
        let hole = Subscriber.hole()
        self.hole = hole
        return hole
    }

    @inlinable
    mutating func free(_ slot: Int) {
        entries[slot] = Entry(serial: 0, position: firstFree)
        firstFree = slot
    }

    /// Replaces the list with a new one holding its subscribers without holes. A lent list is
    /// copied and kept in ``retired``; otherwise its subscribers are moved, and the emptied
    /// list is returned (it holds nothing of the user's).
    @inlinable @inline(never)
    mutating func rebuild(capacity: Int) -> List? {
        let new = List.make(capacity: capacity)
        let old = list
        let lent = isListLent
        let place = { (subscriber: Subscriber) in self.entries[subscriber.id.slot].position = new.append(subscriber) }
        if lent { old.forEach(except: hole, place) } else { old.moveAll(except: hole, place) }
        list = new
        holes = 0
        guard lent else { return old }
        isListLent = false
        retired = old
        return nil
    }
}

/// Which subscriber of a subject: its slot, and a serial unique within the subject, so that a
/// cancellation that comes after its subscriber left finds the slot reused by another, and
/// leaves it alone.
///
/// ```swift
/// let id = table.register()
/// _ = table.remove(id)
/// ```
@usableFromInline
struct SubjectSubscriberID: Sendable {
    @usableFromInline let slot: Int
    @usableFromInline let serial: UInt64

    @inlinable
    init(slot: Int, serial: UInt64) {
        self.slot = slot
        self.serial = serial
    }
}

/// The joined subscribers of a subject, in the order they joined; a removed one leaves a hole
/// (see ``SubjectSubscriberTable/hole``). Lent to the deliverer, which goes through it with no
/// lock held and no reference of its own (the subject's state keeps it alive): see
/// ``SubjectSubscriberTable``.
///
/// ```swift
/// let list = SubjectSubscriberList<Int, Never>.make(capacity: 4)
/// _ = list.append(subscriber)
/// list.forEach { _ = $0.downstream.receive(1) }
/// ```
@usableFromInline
final class SubjectSubscriberList<Element, Failure: Error>:
    ManagedBuffer<SubjectSubscriberListHeader, SubjectSubscriber<Element, Failure>> {
    @usableFromInline typealias Subscriber = SubjectSubscriber<Element, Failure>

    @inlinable
    static func make(capacity: Int) -> SubjectSubscriberList {
        let buffer = create(minimumCapacity: capacity) { _ in SubjectSubscriberListHeader(count: 0, capacity: capacity) }
        return unsafeDowncast(buffer, to: SubjectSubscriberList.self)
    }

    /// Not specialised (a generic class's deinitialiser): deinitialising the positions as
    /// subscribers would cost a lookup of their generic metadata. Each is a class reference, so
    /// they are released as `AnyObject`s, which needs none; an empty list (what a subject lets
    /// go of when it grows its list, and once its last subscriber left) reads only its header.
    @inlinable
    deinit {
        guard count > 0 else { return }
        withUnsafeMutablePointers { header, positions in
            let count = header.pointee.count
            _ = UnsafeMutableRawPointer(positions).withMemoryRebound(to: AnyObject.self, capacity: count) {
                $0.deinitialize(count: count)
            }
        }
    }

    // Through the pointer: the `header` property would cost an exclusivity check per access.
    @inlinable var count: Int { withUnsafeMutablePointerToHeader { $0.pointee.count } }
    @inlinable var room: Int { withUnsafeMutablePointerToHeader { $0.pointee.capacity } }

    /// Adds `subscriber` at the end (there is room); returns its position.
    @inlinable
    func append(_ subscriber: Subscriber) -> Int {
        withUnsafeMutablePointers { header, positions in
            let position = header.pointee.count
            precondition(position < header.pointee.capacity, "Internal inconsistency: a full subscriber list")
            (positions + position).initialize(to: subscriber)
            header.pointee.count += 1
            return position
        }
    }

    /// Removes the subscriber at the end and hands it back.
    @inlinable
    func removeLast() -> Subscriber {
        withUnsafeMutablePointers { header, positions in
            header.pointee.count -= 1
            return (positions + header.pointee.count).move()
        }
    }

    /// Puts `filler` at `position`, handing back the subscriber that was there.
    @inlinable
    func replace(at position: Int, with filler: Subscriber) -> Subscriber {
        withUnsafeMutablePointerToElements { positions in
            let subscriber = (positions + position).move()
            (positions + position).initialize(to: filler)
            return subscriber
        }
    }

    /// Drops the positions at the end that hold `hole`; returns how many.
    @inlinable
    func dropTrailing(_ hole: Subscriber) -> Int {
        withUnsafeMutablePointers { header, positions in
            var dropped = 0
            while header.pointee.count > 0, positions[header.pointee.count - 1] === hole {
                header.pointee.count -= 1
                (positions + header.pointee.count).deinitialize(count: 1)
                dropped += 1
            }
            return dropped
        }
    }

    /// Calls `body` with each subscriber but `hole`, in order.
    @inlinable
    func forEach(except hole: Subscriber?, _ body: (Subscriber) -> Void) {
        withUnsafeMutablePointers { header, positions in
            for position in 0..<header.pointee.count where positions[position] !== hole {
                body(positions[position])
            }
        }
    }

    /// Hands each subscriber but `hole` to `body`, in order, and empties the list.
    @inlinable
    func moveAll(except hole: Subscriber?, _ body: (Subscriber) -> Void) {
        withUnsafeMutablePointers { header, positions in
            for position in 0..<header.pointee.count {
                let subscriber = (positions + position).move()
                if subscriber !== hole { body(subscriber) }
            }
            header.pointee.count = 0
        }
    }

    /// Calls `body` with each subscriber, in order, borrowed from the list: the list, alive
    /// for the whole call, holds them, so they are not retained one by one.
    @inlinable
    func forEach(_ body: (Subscriber) -> Void) {
        withUnsafeMutablePointers { header, positions in
            for member in UnsafeBufferPointer(start: positions, count: header.pointee.count) {
                Unmanaged.passUnretained(member)._withUnsafeGuaranteedRef { body($0) }
            }
        }
    }
}

/// The positions of a ``SubjectSubscriberList`` in use (holes included), and the room for them.
@usableFromInline
struct SubjectSubscriberListHeader {
    @usableFromInline var count: Int
    @usableFromInline let capacity: Int

    @inlinable
    init(count: Int, capacity: Int) {
        self.count = count
        self.capacity = capacity
    }
}
