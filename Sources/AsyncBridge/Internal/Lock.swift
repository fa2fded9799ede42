/// The package's one lock: a mutex (``PlatformMutex``) stored inline with the state it protects.
///
/// A struct holding one reference, so a `Lock` costs one allocation. Not `Synchronization.Mutex`:
/// it is above the Apple deployment floor, and the thread sanitizer reports false races on it
/// on Linux. Other modules (the Combine bridge, `AsyncBridgeTesting`, the tests) reach it
/// through ``SharedLock``.
///
/// The rule for every caller: decide under the lock, act after unlocking. No user code,
/// continuation resumption or event delivery runs inside `withLock`.
///
/// ```swift
/// let counter = Lock.make(0)
/// let next = counter.withLock { value -> Int in value += 1; return value }
/// ```
@usableFromInline
struct Lock<State> {
    @usableFromInline
    let buffer: LockBuffer<State>

    /// Creates a lock guarding `initial`, which is built in place.
    @inlinable
    static func make(_ initial: @autoclosure () -> State) -> Lock<State> {
        Lock(buffer: LockBuffer.make(initial))
    }

    @inlinable
    init(buffer: LockBuffer<State>) {
        self.buffer = buffer
    }

    /// Runs `body` with exclusive access to the state.
    ///
    /// ```swift
    /// calls.withLock { $0.append(1) }
    /// ```
    @inlinable
    func withLock<Result, Failure: Error>(
        _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try buffer.withUnsafeMutablePointers { (state, element) throws(Failure) -> Result in
            try withLockedElement(element, state, body)
        }
    }
}

extension Lock: @unchecked Sendable where State: Sendable {
    // Unchecked because `ManagedBuffer` is not `Sendable`; sound because every access to the
    // state goes through the mutex, and only a `Sendable` state may be read out of it by any
    // thread. A lock around a state that is not `Sendable` is not `Sendable` either: its owner
    // states why its uses are safe (the Combine bridge's subscribers).
}

/// The mutex of a ``Lock`` on its own: non-generic, so it costs the same in unspecialised
/// code. Whoever holds one keeps its lock alive and pairs each `lock()` with an `unlock()`.
///
/// ``allocated()`` makes one that no `Lock` owns, for an object that keeps its state in its
/// own stored properties (read without generic metadata in unspecialised code); that object
/// calls ``deallocate()`` in its `deinit`.
///
/// ```swift
/// let mutex = LockMutex.allocated()
/// mutex.lock(); count += 1; mutex.unlock()
/// mutex.deallocate()   // in the owner's deinit
/// ```
///
/// Unchecked: a pointer to a ``PlatformMutex``, whose operations are thread-safe by definition.
@usableFromInline
struct LockMutex: @unchecked Sendable {
    @usableFromInline
    let pointer: UnsafeMutablePointer<PlatformMutex>

    @inlinable
    init(_ pointer: UnsafeMutablePointer<PlatformMutex>) {
        self.pointer = pointer
    }

    /// A mutex of its own, for an owner that calls ``deallocate()`` once nothing can lock it.
    @inlinable
    static func allocated() -> LockMutex {
        let pointer = UnsafeMutablePointer<PlatformMutex>.allocate(capacity: 1)
        initializeMutex(pointer)
        return LockMutex(pointer)
    }

    /// Frees a mutex made by ``allocated()``: once, when nothing can lock it any more.
    @inlinable
    func deallocate() {
        destroyMutex(pointer)
        pointer.deallocate()
    }

    @inlinable
    func lock() {
        lockMutex(pointer)
    }

    @inlinable
    func unlock() {
        unlockMutex(pointer)
    }
}

/// The storage behind ``Lock``: the state as the header, the mutex as the single element.
///
/// In debug builds the element is a ``LockElement``: the mutex and the ticket of the
/// ``LiveObjectScope`` bound when the buffer was made, so tests can count live objects.
/// Release builds have the bare mutex and no counting.
@usableFromInline
final class LockBuffer<State>: ManagedBuffer<State, LockElement> {
    @inlinable
    static func make(_ initial: () -> State) -> LockBuffer<State> {
        #if DEBUG
        return make(initial, ticket: LiveObjectTicket.forNewObject())
        #else
        let buffer = create(minimumCapacity: 1) { _ in initial() }
        buffer.withUnsafeMutablePointerToElements { initializeMutex($0) }  // the element is the mutex
        return unsafeDowncast(buffer, to: LockBuffer<State>.self)
        #endif
    }

    #if DEBUG
    /// A buffer that no ``LiveObjectScope`` counts (the scope's own lock).
    @usableFromInline
    static func makeUntracked(_ initial: () -> State) -> LockBuffer<State> {
        make(initial, ticket: nil)
    }

    @inlinable
    static func make(_ initial: () -> State, ticket: LiveObjectTicket?) -> LockBuffer<State> {
        let buffer = create(minimumCapacity: 1) { _ in initial() }
        buffer.withUnsafeMutablePointerToElements { initializeLockElement($0, ticket: ticket) }
        return unsafeDowncast(buffer, to: LockBuffer<State>.self)
    }
    #endif

    // The state itself (the header) is destroyed just after this, by the runtime; the objects
    // it holds that a scope counts report their own end.
    @inlinable
    deinit {
        withUnsafeMutablePointerToElements { destroyLockElement($0) }
    }
}

#if DEBUG
/// Initialises a debug build's ``LockElement`` in place: the mutex, and `ticket`, which counts
/// the buffer in its ``LiveObjectScope`` (`nil`: not counted).
@inlinable
func initializeLockElement(_ element: UnsafeMutablePointer<LockElement>, ticket: LiveObjectTicket?) {
    element.initialize(to: LockElement(mutex: mutexToPlace(), ticket: ticket))
    initializeMutex(lockElementMutex(element))
}
#endif

/// A ``LockElement`` for a buffer whose element holds it beside fields of its own (the
/// completer's): store it in place, then make its mutex there, with ``initializeMutex(_:)`` on
/// ``lockElementMutex(_:)``. In debug builds it carries the ticket of the ``LiveObjectScope``
/// bound now, which counts the buffer.
@inlinable
func lockElementToPlace() -> LockElement {
    #if DEBUG
    LockElement(mutex: mutexToPlace(), ticket: LiveObjectTicket.forNewObject())
    #else
    mutexToPlace()
    #endif
}

/// Runs `body` on `state` holding the mutex of `element`: how every buffer with a
/// ``LockElement`` locks (a ``LockBuffer``, the completer's). `body` is called directly, with
/// no closure around it, so that unspecialised callers pay no extra call.
@inlinable @inline(__always)
func withLockedElement<State, Result, Failure: Error>(
    _ element: UnsafeMutablePointer<LockElement>,
    _ state: UnsafeMutablePointer<State>,
    _ body: (inout State) throws(Failure) -> Result
) throws(Failure) -> Result {
    let mutex = lockElementMutex(element)
    lockMutex(mutex)
    defer { unlockMutex(mutex) }
    return try body(&state.pointee)
}

/// The mutex in a ``LockElement``.
@inlinable
func lockElementMutex(_ element: UnsafeMutablePointer<LockElement>) -> UnsafeMutablePointer<PlatformMutex> {
    #if DEBUG
    element.pointer(to: \.mutex)!
    #else
    element
    #endif
}

/// Destroys a ``LockElement``'s mutex; in debug builds, releases the ticket, which reports the
/// buffer's end to its scope.
@inlinable
func destroyLockElement(_ element: UnsafeMutablePointer<LockElement>) {
    destroyMutex(lockElementMutex(element))
    #if DEBUG
    element.deinitialize(count: 1)
    #endif
}

#if DEBUG
/// A ``LockBuffer``'s element in debug builds: the mutex, and the ticket that counts the
/// buffer in a ``LiveObjectScope`` (`nil` when none was bound), released with the buffer.
@usableFromInline
struct LockElement {
    @usableFromInline var mutex: PlatformMutex
    @usableFromInline let ticket: LiveObjectTicket?

    @inlinable
    init(mutex: PlatformMutex, ticket: LiveObjectTicket?) {
        self.mutex = mutex
        self.ticket = ticket
    }
}
#else
/// A ``LockBuffer``'s element in release builds: the bare mutex.
@usableFromInline
typealias LockElement = PlatformMutex
#endif
