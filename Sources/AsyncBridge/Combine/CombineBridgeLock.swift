#if canImport(Combine) || ASYNCBRIDGE_OPENCOMBINE
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Bionic)
import Bionic
#endif

/// A `pthread_mutex_t` at a stable address, for an object that keeps its state next to it
/// (``FlowPublisherSubscription``, whose per-value path must not go through a generic
/// `withLock`: unspecialised, each call looks up the metadata of its state and result types).
///
/// A struct holding the pointer: the owner calls ``destroy()`` in its `deinit`. The same rule
/// as ``CombineBridgeLock``: decide under the lock, act after unlocking.
///
/// ```swift
/// let mutex = CombineBridgeMutex()
/// mutex.lock(); count += 1; mutex.unlock()
/// mutex.destroy()   // in the owner's deinit
/// ```
struct CombineBridgeMutex: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    func lock() { pthread_mutex_lock(mutex) }

    func unlock() { pthread_mutex_unlock(mutex) }

    /// Frees the mutex: once, when nothing can lock it any more.
    func destroy() {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }
}

/// The Combine bridge's lock: a ``CombineBridgeMutex`` guarding one state.
///
/// The bridge uses AsyncBridge's public API only (on Linux it is compiled in a module of its
/// own, against OpenCombine), so it cannot use the package's internal `Lock`; this is the same
/// mechanism (a `pthread_mutex_t`, on every platform), in a class.
///
/// The rule is the package's: decide under the lock, act after unlocking. Nothing of the
/// user's (a subscriber, a closure, a buffered value being released) runs or is released
/// inside `withLock`.
///
/// ```swift
/// let counter = CombineBridgeLock(0)
/// let next = counter.withLock { value -> Int in value += 1; return value }
/// ```
///
/// Unchecked: `state` is only read or written inside `withLock`, which holds the mutex.
final class CombineBridgeLock<State>: @unchecked Sendable {
    private let mutex = CombineBridgeMutex()
    private var state: State

    init(_ initial: State) {
        state = initial
    }

    deinit {
        mutex.destroy()
    }

    /// Runs `body` with exclusive access to the state.
    func withLock<Result>(_ body: (inout State) -> Result) -> Result {
        mutex.lock()
        defer { mutex.unlock() }
        return body(&state)
    }
}
#endif
