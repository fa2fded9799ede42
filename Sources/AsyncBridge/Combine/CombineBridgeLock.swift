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

/// The Combine bridge's lock: a `pthread_mutex_t` guarding one state.
///
/// The bridge uses AsyncBridge's public API only (on Linux it is compiled in a module of its
/// own, against OpenCombine), so it cannot use the package's internal `Lock`; this is the same
/// mechanism (a `pthread_mutex_t`, as DESIGN.md asks on every platform), in a class.
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
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var state: State

    init(_ initial: State) {
        state = initial
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the state.
    func withLock<Result>(_ body: (inout State) -> Result) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body(&state)
    }
}
#endif
