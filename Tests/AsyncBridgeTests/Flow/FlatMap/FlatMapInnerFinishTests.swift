@testable import AsyncBridge
import Testing

/// `FlatMapInnerFinish`: of an inner's thread and its starter, exactly one reports the inner's
/// finish, whichever order they come in.
@Suite("Flow: flatMap, who reports an inner's finish")
struct FlatMapInnerFinishTests {
    @Test
    func aFinishDuringTheSubscribeIsReportedByTheStarter() {
        let finish = FlatMapInnerFinish(subscribing: true)
        #expect(finish.innerFinished() == false)
        #expect(finish.subscribeReturned() == true)
    }

    @Test
    func aFinishAfterTheSubscribeIsReportedByTheInner() {
        let finish = FlatMapInnerFinish(subscribing: true)
        #expect(finish.subscribeReturned() == false)
        #expect(finish.innerFinished() == true)
    }

    @Test
    func aStarterWhoseInnerRunsOnReportsNothing() {
        let finish = FlatMapInnerFinish(subscribing: true)
        #expect(finish.subscribeReturned() == false)
    }

    @Test
    func anInnerWithoutAStarterToReportToReportsItself() {
        let finish = FlatMapInnerFinish(subscribing: false)
        #expect(finish.innerFinished() == true)
    }
}
