#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Bionic)
import Bionic
#endif

/// Which thread something runs on, to tell whether a call comes from a given thread (say, the
/// one that is delivering a subject's events, re-entrantly from inside a handler).
///
/// Only meaningful while that thread is alive and known to be inside the work in question:
/// the system reuses the identity of a thread that has exited.
///
/// ```swift
/// let deliverer = ThreadIdentity.current
/// if deliverer.isCurrent { /* called back on the same thread */ }
/// ```
@usableFromInline
struct ThreadIdentity: @unchecked Sendable {  // `pthread_t` is a pointer on Darwin, only ever compared
    @usableFromInline let thread: pthread_t

    @inlinable
    init(thread: pthread_t) {
        self.thread = thread
    }

    /// The calling thread.
    @inlinable
    static var current: ThreadIdentity {
        ThreadIdentity(thread: pthread_self())
    }

    /// Whether the calling thread is this one.
    @inlinable
    var isCurrent: Bool {
        pthread_equal(thread, pthread_self()) != 0
    }

    /// The current thread as a nonzero word, for an atomic that records who holds something.
    @inlinable
    static var currentWord: UInt {
        #if canImport(Glibc)
        return UInt(pthread_self())  // an integer on glibc, a pointer elsewhere
        #else
        return UInt(bitPattern: pthread_self())
        #endif
    }
}
