#if canImport(Darwin) || ASYNCBRIDGE_LOCKED_ATOMICS
// `Synchronization.Atomic` needs macOS 15 / iOS 18, above the deployment floor: the package's
// lock stands in. Linux CI builds this branch too (`-D ASYNCBRIDGE_LOCKED_ATOMICS`).

/// A word read and changed atomically: the package's one atomic, for the flags that a hot path
/// reads without taking a lock (a subscription's gate).
///
/// ```swift
/// let state = AtomicWord(0)
/// let before = state.setBits(1)   // 0
/// ```
@usableFromInline
struct AtomicWord: ~Copyable, Sendable {
    @usableFromInline let lock: Lock<UInt>

    @inlinable
    init(_ initial: UInt) {
        lock = .make(initial)
    }

    /// The value, with acquire ordering.
    @inlinable
    func load() -> UInt {
        lock.withLock { $0 }
    }

    /// Sets `value`, with release ordering.
    @inlinable
    func store(_ value: UInt) {
        lock.withLock { $0 = value }
    }

    /// Sets `bits`, returning the value before.
    @inlinable
    func setBits(_ bits: UInt) -> UInt {
        lock.withLock { value in
            defer { value |= bits }
            return value
        }
    }

    /// Replaces `expected` by `desired`; returns the value found (`expected` when it replaced).
    @inlinable
    func compareExchange(expected: UInt, desired: UInt) -> UInt {
        lock.withLock { value in
            defer { if value == expected { value = desired } }
            return value
        }
    }
}
#else
import Synchronization

/// A word read and changed atomically: the package's one atomic, for the flags that a hot path
/// reads without taking a lock (a subscription's gate).
///
/// ```swift
/// let state = AtomicWord(0)
/// let before = state.setBits(1)   // 0
/// ```
@usableFromInline
struct AtomicWord: ~Copyable, Sendable {
    @usableFromInline let value: Atomic<UInt>

    @inlinable
    init(_ initial: UInt) {
        value = Atomic(initial)
    }

    /// The value, with acquire ordering.
    @inlinable
    func load() -> UInt {
        value.load(ordering: .acquiring)
    }

    /// Sets `value`, with release ordering.
    @inlinable
    func store(_ newValue: UInt) {
        value.store(newValue, ordering: .releasing)
    }

    /// Sets `bits`, returning the value before.
    @inlinable
    func setBits(_ bits: UInt) -> UInt {
        value.bitwiseOr(bits, ordering: .acquiringAndReleasing).oldValue
    }

    /// Replaces `expected` by `desired`; returns the value found (`expected` when it replaced).
    @inlinable
    func compareExchange(expected: UInt, desired: UInt) -> UInt {
        value.compareExchange(expected: expected, desired: desired, ordering: .acquiringAndReleasing).original
    }
}
#endif
