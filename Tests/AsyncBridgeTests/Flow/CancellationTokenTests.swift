import Dispatch
import Testing
import AsyncBridge

@Suite("CancellationToken")
struct CancellationTokenTests {
    @Test func cancelsOnceEvenFromManyThreads() {
        let count = AtomicCounter()
        let token = CancellationToken { count.increment() }
        #expect(!token.isCancelled)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in token.cancel() }
        #expect(count.value == 1)
        #expect(token.isCancelled)
    }

    @Test func releasingATokenDoesNotCancel() {
        let count = AtomicCounter()
        do { _ = CancellationToken { count.increment() } }
        #expect(count.value == 0)
    }

    @Test func tokensAreEqualOnlyToThemselves() {
        let first = CancellationToken {}
        let second = CancellationToken {}
        #expect(first == first && first != second)
        #expect(Set([first, second, first]).count == 2)
    }

    @Test func aCancelActionMayCancelItsOwnTokenAgain() {
        let count = AtomicCounter()
        let holder = Box<CancellationToken?>(nil)
        let token = CancellationToken {
            count.increment()
            holder.value?.cancel()  // re-entrant: must not deadlock or run twice
        }
        holder.value = token
        token.cancel()
        #expect(count.value == 1)
        holder.value = nil
    }
}
