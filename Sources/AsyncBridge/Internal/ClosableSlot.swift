/// The package's one first-writer-wins slot: it holds at most one value until it is closed,
/// once. Whoever closes it first takes what it held; whoever fills it after that learns it was
/// closed and disposes of the value itself (cancels the task, runs the cancel action). Decided
/// under the slot's ``Lock``; the value is acted on, and released, by the caller after
/// unlocking.
///
/// ```swift
/// let timer = ClosableSlot<Task<Void, Never>>()
/// if !timer.fill(task) { task.cancel() }          // closed already: the race was over
/// if let held = timer.close() { held?.cancel() }  // the first to close ends the race
/// ```
@usableFromInline
struct ClosableSlot<Value>: Sendable where Value: Sendable {
    /// `.some` while open (holding a value or not), `nil` once closed.
    @usableFromInline let state: Lock<Value??>

    /// An open slot holding `value`, or nothing.
    @inlinable
    init(_ value: Value? = nil) {
        state = .make(.some(value))
    }

    /// Puts `value` in the open slot, replacing what it held (which the caller gets back, to
    /// release); `nil` once the slot is closed: then `value` is the caller's to dispose of.
    ///
    /// ```swift
    /// guard timer.fill(task) != nil else { return task.cancel() }
    /// ```
    @inlinable
    func fill(_ value: Value) -> Value?? {
        state.withLock { slot -> Value?? in
            guard let held = slot else { return nil }
            slot = .some(value)
            return .some(held)
        }
    }

    /// Closes the slot. The first caller gets `.some` of what it held (`.some(nil)` if it held
    /// nothing); every later caller gets `nil`.
    ///
    /// ```swift
    /// if let held = timer.close() { held?.cancel() }
    /// ```
    @inlinable
    func close() -> Value?? {
        state.withLock { slot -> Value?? in
            defer { slot = nil }
            return slot
        }
    }
}
