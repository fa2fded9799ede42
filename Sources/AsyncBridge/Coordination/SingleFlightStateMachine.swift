/// The flights of a ``SingleFlight`` in progress, one per key, changed only under its lock.
/// Each event returns what to do once the lock is released.
///
/// A flight is a `SharedFuture` made for one run of the operation. The future keeps the waiters:
/// it shares the run among them, lets each one leave on its own, and runs the cancel action
/// when the last one leaves. This machine only decides which future a caller of a key joins:
///
/// ```
/// absent ──a caller arrives──▶ flying(id) ──its run finished──▶ absent
///                                  │
///                                  └──every waiter left (its future is idle)──▶ absent
/// ```
///
/// A flight leaves the table *before* its waiters are resumed, so a caller that comes after
/// a flight ended starts a new one: nothing is remembered beyond the flight. A caller arrives
/// at the future while this machine's lock is held (the future's own lock nests inside it), so
/// a future that went idle is either joined again by that caller or removed, never both.
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
        /// The flight in progress.
        case joining(Flight)
        /// A new flight, just entered in the table: the caller starts it.
        case starting(Flight)
    }

    /// The flights in progress. A key without an entry has no flight: its next caller starts one.
    @usableFromInline var flights: [Key: Flight] = [:]
    @usableFromInline var nextID: UInt64 = 0

    @inlinable
    init() {}

    /// A caller of `key` arrives: it joins the flight in progress, or starts one made by `make`
    /// (given the new flight's id).
    @inlinable
    mutating func arrive(_ key: Key, make: (UInt64) -> SharedFuture<Value, Failure>) -> Arrival {
        if let flight = flights[key] { return .joining(flight) }
        nextID &+= 1
        let flight = Flight(id: nextID, future: make(nextID))
        flights[key] = flight
        return .starting(flight)
    }

    /// Flight `id` of `key` ended (its run finished, or every waiter left it): it leaves the
    /// table if it is still there and `hasEnded` confirms it, judged by its future's state.
    /// Returns the removed flight, to be released once the lock is released.
    @inlinable
    mutating func remove(_ key: Key, _ id: UInt64, if hasEnded: (SharedFuture<Value, Failure>) -> Bool) -> Flight? {
        guard let flight = flights[key], flight.id == id, hasEnded(flight.future) else { return nil }
        return flights.removeValue(forKey: key)
    }
}
