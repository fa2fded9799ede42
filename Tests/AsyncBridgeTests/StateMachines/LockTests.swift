@testable import AsyncBridge
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
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
                guard pthread_mutex_trylock(pointer) == 0 else { return true }
                pthread_mutex_unlock(pointer)
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
