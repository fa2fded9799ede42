import Dispatch
import Testing
import AsyncBridgeTesting

@Suite("CompletionSpy")
struct CompletionSpyTests {
    @Test func recordsEveryCallInOrder() {
        let spy = CompletionSpy<Int>()
        spy.completion(1)
        spy.record(2)
        #expect(spy.calls == [1, 2])
        #expect(spy.callCount == 2)
    }

    @Test func firstCallWaitsForACallFromAnotherThread() async {
        let spy = CompletionSpy<Int>()
        DispatchQueue.global().async { spy.completion(7) }
        #expect(await spy.firstCall() == 7)
        #expect(await spy.firstCall() == 7, "returns at once when already called")
    }

    @Test func countsConcurrentCalls() {
        let spy = CompletionSpy<Int>()
        DispatchQueue.concurrentPerform(iterations: 100) { spy.completion($0) }
        #expect(spy.callCount == 100)
        #expect(Set(spy.calls) == Set(0..<100))
    }
}
