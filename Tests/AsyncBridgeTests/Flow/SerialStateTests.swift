import Dispatch
import Testing
@testable import AsyncBridge

/// `SerialState` holds the serial-delivery contract in debug builds: an access that overlaps
/// another stops the process with a message naming the contract (release builds do not check).
@Suite("SerialState", .timeLimit(.minutes(1)))
struct SerialStateTests {
    #if DEBUG
    /// A value whose mutation runs `body` inside it, holding the access open.
    struct Holding: Sendable {
        var count = 0

        mutating func hold(_ body: () -> Void) {
            count += 1
            body()
        }
    }

    @Test func anAccessFromASecondThreadWhileOneIsUnderWayTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let state = SerialState(Holding())
            let inside = DispatchSemaphore(value: 0)
            let unchecked = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                inside.wait()
                _ = state.value.count  // while the first thread's access is open: traps
                unchecked.signal()  // reached only without the check: the process then exits normally
            }
            state.value.hold {
                inside.signal()
                unchecked.wait()  // holds the access open until the trap ends the process
            }
        }
        if let result {
            let output = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(output.contains("SerialState<Holding>") && output.contains("serial-delivery contract is broken"), "\(output)")
        }
    }

    @Test func anAccessNestedInAnotherOnTheSameThreadTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let state = SerialState(Holding())
            state.value.hold { _ = state.value.count }
        }
        if let result {
            let output = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(output.contains("SerialState<Holding>") && output.contains("serial-delivery contract is broken"), "\(output)")
        }
    }

    /// Accesses one after another, on one thread or handed from thread to thread as a drain's
    /// deliverer changes, are not mistaken for overlapping ones.
    @Test func accessesOneAfterAnotherDoNotTrap() async {
        await #expect(processExitsWith: .success) {
            let state = SerialState(Holding())
            state.value.hold {}
            _ = state.value.count
            state.value.count += 1
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                state.value.hold {}
                _ = state.value.count
                done.signal()
            }
            done.wait()
            state.value.hold {}
            if state.value.count != 4 { fatalError("\(state.value.count)") }
        }
    }
    #endif
}
