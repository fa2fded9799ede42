#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Bionic)
import Bionic
#endif

// The mutex inside ``Lock``, and the only file that calls the platform's mutexes. On Apple
// platforms it is a `pthread_mutex_t` (`Synchronization` is above the deployment floor there);
// elsewhere it is a lock word changed by atomic operations, inlined into every caller, whose
// waiters park in a table of `pthread` mutexes and conditions shared by every lock. The tests
// build the Apple variant on Linux too (`-D ASYNCBRIDGE_LOCKED_ATOMICS`).

/// A mutex's bytes, to store in place before ``initializeMutex(_:)`` makes a mutex there.
@inlinable
func mutexToPlace() -> PlatformMutex {
    PlatformMutex()
}

#if canImport(Darwin) || ASYNCBRIDGE_LOCKED_ATOMICS

/// The mutex of a ``LockBuffer``, for another buffer with the same layout (the state as the
/// header, the mutex as the single element).
@usableFromInline
typealias PlatformMutex = pthread_mutex_t

/// Initialises the mutex of a ``LockBuffer`` or of another buffer with the same layout.
@inlinable
func initializeMutex(_ mutex: UnsafeMutablePointer<PlatformMutex>) {
    let status = pthread_mutex_init(mutex, nil)
    precondition(status == 0, "pthread_mutex_init failed: \(status)")
}

/// Destroys a mutex made by ``initializeMutex(_:)``.
@inlinable
func destroyMutex(_ mutex: UnsafeMutablePointer<PlatformMutex>) {
    pthread_mutex_destroy(mutex)
}

@inlinable @inline(__always)
func lockMutex(_ mutex: UnsafeMutablePointer<PlatformMutex>) {
    pthread_mutex_lock(mutex)
}

@inlinable @inline(__always)
func unlockMutex(_ mutex: UnsafeMutablePointer<PlatformMutex>) {
    pthread_mutex_unlock(mutex)
}

/// Takes the mutex if it is free; whether it did.
@inlinable
func tryLockMutex(_ mutex: UnsafeMutablePointer<PlatformMutex>) -> Bool {
    pthread_mutex_trylock(mutex) == 0
}

#else
import Synchronization

/// The mutex of a ``LockBuffer``, for another buffer with the same layout: a lock word, read and
/// changed only as an `Atomic<UInt32>` once initialised. 0: free; 1: held; 2: held, and a thread
/// may be waiting for it, so the holder wakes the waiters when it unlocks.
///
/// Taking a free lock is one compare-and-exchange, giving it back one exchange, with no call:
/// most locks are never contended (a subscription's, a future's). A thread that finds it held
/// marks it 2 and waits in the ``LockParking`` slot of its address, until the holder's unlock
/// wakes that slot.
@usableFromInline
struct PlatformMutex {
    @usableFromInline var word: UInt32 = 0

    @inlinable
    init() {}
}

@inlinable
func initializeMutex(_ mutex: UnsafeMutablePointer<PlatformMutex>) {
    mutex.initialize(to: PlatformMutex())
}

/// Nothing to release: the word is plain memory, and no thread waits on a lock that is gone.
@inlinable
func destroyMutex(_ mutex: UnsafeMutablePointer<PlatformMutex>) {}

/// Runs `body` on the lock word as the atomic it is used as.
@inlinable @inline(__always)
func withLockWord<Result>(
    _ mutex: UnsafeMutablePointer<PlatformMutex>,
    _ body: (UnsafeMutablePointer<Atomic<UInt32>>) -> Result
) -> Result {
    UnsafeMutableRawPointer(mutex).withMemoryRebound(to: Atomic<UInt32>.self, capacity: 1, body)
}

@inlinable @inline(__always)
func lockMutex(_ mutex: UnsafeMutablePointer<PlatformMutex>) {
    withLockWord(mutex) { word in
        if !word.pointee.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged {
            LockParking.lock(word)
        }
    }
}

@inlinable @inline(__always)
func unlockMutex(_ mutex: UnsafeMutablePointer<PlatformMutex>) {
    withLockWord(mutex) { word in
        if word.pointee.exchange(0, ordering: .releasing) == 2 { LockParking.wake(word) }
    }
}

/// Takes the mutex if it is free; whether it did.
@inlinable
func tryLockMutex(_ mutex: UnsafeMutablePointer<PlatformMutex>) -> Bool {
    withLockWord(mutex) { word in
        word.pointee.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged
    }
}

/// Where threads wait for a held ``PlatformMutex``: a fixed table of slots, each a `pthread`
/// mutex and condition, shared by every lock whose address falls in it.
///
/// A waiter marks the word 2 while holding its slot's mutex, and waits on the condition until
/// marking it takes it (the word was 0). An unlock that finds 2 takes the same slot's mutex to
/// wake it, so it cannot wake before the waiter waits. It wakes every waiter of the slot (locks
/// share slots): those of other locks, and all but one of this lock's, mark their word again and
/// wait again.
@usableFromInline
enum LockParking {
    /// Takes the lock, which was held when the caller tried.
    @usableFromInline
    static func lock(_ word: UnsafeMutablePointer<Atomic<UInt32>>) {
        let slot = slots.slot(for: word)
        pthread_mutex_lock(slot.mutex)
        while word.pointee.exchange(2, ordering: .acquiring) != 0 {
            pthread_cond_wait(slot.condition, slot.mutex)
        }
        pthread_mutex_unlock(slot.mutex)
    }

    /// Wakes the threads that may wait for the lock, which the caller has just freed. Reads only
    /// the word's address: the lock may be gone already.
    @usableFromInline
    static func wake(_ word: UnsafeMutablePointer<Atomic<UInt32>>) {
        let slot = slots.slot(for: word)
        pthread_mutex_lock(slot.mutex)
        pthread_cond_broadcast(slot.condition)
        pthread_mutex_unlock(slot.mutex)
    }

    static let slots = Slots()

    /// The table, made once and never freed. Unchecked: pointers to `pthread` mutexes and
    /// conditions, whose operations are thread-safe by definition.
    struct Slots: @unchecked Sendable {
        static let count = 64
        let mutexes: UnsafeMutablePointer<pthread_mutex_t>
        let conditions: UnsafeMutablePointer<pthread_cond_t>

        init() {
            mutexes = .allocate(capacity: Self.count)
            conditions = .allocate(capacity: Self.count)
            for index in 0..<Self.count {
                precondition(pthread_mutex_init(mutexes + index, nil) == 0, "pthread_mutex_init failed")
                precondition(pthread_cond_init(conditions + index, nil) == 0, "pthread_cond_init failed")
            }
        }

        func slot(for word: UnsafeMutablePointer<Atomic<UInt32>>) -> (mutex: UnsafeMutablePointer<pthread_mutex_t>, condition: UnsafeMutablePointer<pthread_cond_t>) {
            let address = UInt(bitPattern: word)
            let index = Int((address >> 4 ^ address >> 10) % UInt(Self.count))
            return (mutexes + index, conditions + index)
        }
    }
}
#endif
