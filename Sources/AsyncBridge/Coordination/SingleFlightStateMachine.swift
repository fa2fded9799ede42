/// The flights of a ``SingleFlight`` in progress, one per key, changed only under its lock.
///
/// A flight is a `SharedFuture` made for one run, never restarted; the future keeps the waiters
/// and runs the cancel action when the last one leaves. This machine only decides which future
/// a caller of a key joins, and tells flights apart by id:
///
/// ```
/// absent ──a caller arrives──▶ flying(id) ──flight id ends──▶ absent
/// ```
///
/// A flight ends when its run finished or every waiter left it. It leaves the table *before*
/// its waiters are resumed, so a later caller starts a new one; the end of an earlier flight of
/// the key changes nothing.
@usableFromInline
struct SingleFlightStateMachine<Key: Hashable & Sendable, Value: Sendable, Failure: Error>: Sendable {
    @usableFromInline
    struct Flight: Sendable {
        /// Tells this flight from a later one of the same key.
        @usableFromInline let id: UInt64
        @usableFromInline let future: SharedFuture<Value, Failure>

        @inlinable
        init(id: UInt64, future: SharedFuture<Value, Failure>) {
            self.id = id
            self.future = future
        }
    }

    /// What a caller of a key joins.
    @usableFromInline
    enum Arrival {
        /// The flight in the table, which may have been abandoned since.
        case joining(Flight)
        /// A new flight, just entered in the table: the caller starts it.
        case starting(Flight)
    }

    /// The flights in progress. A key without an entry has no flight: its next caller starts one.
    @usableFromInline var flights: [Key: Flight] = [:]
    @usableFromInline var nextID: UInt64 = 0

    @inlinable
    init() {}

    /// A caller of `key` arrives: it joins the flight in the table, or starts one made by `make`
    /// (given the new flight's id), which must take no lock.
    @inlinable
    mutating func arrive(_ key: Key, make: (UInt64) -> SharedFuture<Value, Failure>) -> Arrival {
        if let flight = flights[key] { return .joining(flight) }
        nextID &+= 1
        let flight = Flight(id: nextID, future: make(nextID))
        flights[key] = flight
        return .starting(flight)
    }

    /// Flight `id` of `key` ended: it leaves the table if it is still there. Returns the removed
    /// flight, to be released once the lock is released.
    @inlinable
    mutating func end(_ key: Key, _ id: UInt64) -> Flight? {
        guard flights[key]?.id == id else { return nil }
        return flights.removeValue(forKey: key)
    }
}
