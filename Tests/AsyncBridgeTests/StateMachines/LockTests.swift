@testable import AsyncBridge
import Dispatch
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif
#if !(canImport(Darwin) || ASYNCBRIDGE_LOCKED_ATOMICS)
import Synchronization
#endif

extension ExhaustiveStateMachineSuites {
    /// ``Lock`` as a plain value against an integer: `withLock` hands the body the state it
    /// holds, keeps what the body wrote (also when it throws), returns what the body returned or
    /// throws what it threw, holds the mutex exactly while the body runs, and releases it either
    /// way.
    @Suite("State machines: lock")
    struct LockTests {
        struct Thrown: Error, Equatable {
            var state: Int
        }

        enum Input: String, CustomStringConvertible, CaseIterable {
            /// Adds one, returns the new state.
            case increment
            /// Doubles the state, then throws it.
            case doubleThenThrow
            /// Reads the state.
            case read
            var description: String { rawValue }
        }

        struct Driver: SequenceDriver {
            let lock = Lock.make(1)
            var state = 1

            /// Whether a thread holds the mutex: a `trylock` that fails (and one that succeeds
            /// gives it back at once).
            func isLocked() -> Bool {
                let pointer = lock.buffer.withUnsafeMutablePointerToElements { lockElementMutex($0) }
                guard tryLockMutex(pointer) else { return true }
                unlockMutex(pointer)
                return false
            }

            mutating func apply(_ input: Input) throws(Violation) -> Bool {
                var heldInside = false
                var seen: Int?
                let before = state
                func increment(_ value: inout Int) -> Int {
                    seen = value
                    heldInside = isLocked()
                    value += 1
                    return value
                }
                switch input {
                case .increment:
                    let returned = lock.withLock(increment)
                    try require(returned == state + 1, "returned \(returned), expected \(state + 1)")
                    state += 1
                case .doubleThenThrow:
                    var threw = false
                    do throws(Thrown) {
                        try lock.withLock { (value: inout Int) throws(Thrown) -> Void in
                            seen = value
                            heldInside = isLocked()
                            value *= 2
                            throw Thrown(state: value)
                        }
                    } catch {
                        threw = true
                        try require(error == Thrown(state: state * 2), "threw \(error), expected \(state * 2)")
                    }
                    try require(threw, "withLock did not throw")
                    state *= 2
                case .read:
                    let returned = lock.withLock { value in
                        seen = value
                        heldInside = isLocked()
                        return value
                    }
                    try require(returned == state, "read \(returned), expected \(state)")
                }
                try require(seen == before, "the body was handed \(String(describing: seen)), expected \(before)")
                try require(heldInside, "the mutex was free while the body ran")
                try require(!isLocked(), "the mutex is still held after withLock returned")
                let held = lock.buffer.withUnsafeMutablePointerToHeader { $0.pointee }  // read without the mutex, which must be free
                try require(held == state, "holds \(held), expected \(state)")
                return true
            }

            mutating func end() throws(Violation) -> [Watched] { [] }
        }

        /// Every sequence of up to 8 inputs over {increment, doubleThenThrow, read}.
        @Test func everySequenceOfUpToEightInputs() {
            let count = checkEverySequence(over: Input.allCases, upTo: 8) { Driver() }
            #expect(count == (0...8).reduce(0) { $0 + Int(pow(3.0, Double($1))) })
        }
    }
}

/// ``Lock`` between threads: a thread that finds it held waits, and is woken when it is freed.
@Suite("Lock: threads that contend", .timeLimit(.minutes(1)))
struct LockContentionTests {
    /// Four threads add to one counter, each many times: a lock that let two in at once, or
    /// lost a write, would count fewer.
    @Test func fourThreadsCountEveryIncrement() {
        let counter = Lock.make(0)
        let perThread = 100_000
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<perThread { counter.withLock { $0 += 1 } }
        }
        #expect(counter.withLock { $0 } == 4 * perThread)
    }

    #if !(canImport(Darwin) || ASYNCBRIDGE_LOCKED_ATOMICS)
    /// A thread that finds the lock held marks its word as awaited (2) and waits; freeing the
    /// lock wakes it, and it takes the lock.
    @Test func aWaitingThreadIsWokenWhenTheLockIsFreed() async {
        let lock = Lock.make(0)
        let mutex = lock.buffer.withUnsafeMutablePointerToElements { lockElementMutex($0) }
        lockMutex(mutex)
        let taken: Int = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: lock.withLock { value in
                    value += 1
                    return value
                })
            }
            while withLockWord(mutex, { $0.pointee.load(ordering: .acquiring) }) != 2 { sched_yield() }
            unlockMutex(mutex)
        }
        #expect(taken == 1)
        #expect(withLockWord(mutex) { $0.pointee.load(ordering: .acquiring) } == 0, "the lock is free again")
    }
    #endif
}
