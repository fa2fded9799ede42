import Dispatch
import Testing
import AsyncBridge
import AsyncBridgeTesting

/// A view model on the main actor, fed by a flow that hops to it.
@MainActor
private final class TitleViewModel {
    private(set) var title = ""
    private(set) var isDone = false
    let bag = CancellationBag()

    init(titles: Flow<String, Never>) {
        titles.receive(on: MainActor.shared)
            .subscribe(with: self) { viewModel, title in
                viewModel.title = title
            } onCompletion: { viewModel, _ in
                viewModel.isDone = true
            }
            .store(in: bag)
    }
}

@MainActor
@Suite("waitForMainQueue from a @MainActor test", .timeLimit(.minutes(1)))
struct WaitForMainQueueOnTheMainActorTests {
    @Test func blocksEnqueuedBeforeTheCallHaveRun() async {
        let log = CompletionSpy<String>()
        for index in 1...3 { DispatchQueue.main.async { log.record("\(index)") } }
        await waitForMainQueue()
        #expect(log.calls == ["1", "2", "3"])
    }

    @Test func aViewModelHasItsValuesAfterTheWait() async {
        let titles = LiveSubject<String, Never>()
        let viewModel = TitleViewModel(titles: titles.flow)
        titles.send("Ada")
        #expect(viewModel.title == "", "delivered synchronously, not in a main-queue block")
        await waitForMainQueue()
        #expect(viewModel.title == "Ada")
        await Task.detached { titles.send("Grace"); titles.finish() }.value   // sent off the main actor
        await waitForMainQueue()
        #expect(viewModel.title == "Grace" && viewModel.isDone)
    }

    @Test func aSecondHopIsDoneAfterASecondWait() async {
        let titles = LiveSubject<String, Never>()
        // The main-actor flow's events hop to the main queue again: two blocks, one after the other.
        let viewModel = TitleViewModel(titles: titles.flow.receive(on: MainActor.shared).flow)
        titles.send("Ada")
        await waitForMainQueue()
        await waitForMainQueue()
        #expect(viewModel.title == "Ada")
    }

    @Test func mainActorTasksStartedBeforeTheCallHaveRunToTheirFirstSuspension() async {
        let log = CompletionSpy<String>()
        Task { @MainActor in log.record("task") }
        await waitForMainQueue()
        #expect(log.calls == ["task"])
    }
}

@Suite("waitForMainQueue and waitForQueue from a nonisolated test", .timeLimit(.minutes(1)))
struct WaitForQueueTests {
    @Test func mainQueueDeliveriesAreDoneAfterTheWait() async {
        let titles = LiveSubject<String, Never>()
        let recorder = FlowRecorder(titles.flow.receive(on: .main))
        titles.send("a")
        titles.finish()
        await waitForMainQueue()
        #expect(recorder.events == marbles("a|"))
    }

    @Test func aSerialQueuesDeliveriesAreDoneAfterTheWait() async {
        let queue = DispatchQueue(label: "waitForQueue.serial")
        let titles = LiveSubject<String, Never>()
        let recorder = FlowRecorder(titles.flow.receive(on: queue))
        titles.send("a")
        titles.send("b")
        await waitForQueue(queue)
        #expect(recorder.events == marbles("ab"))
    }

    @Test func aConcurrentQueuesBlocksHaveAllFinished() async {
        let queue = DispatchQueue(label: "waitForQueue.concurrent", attributes: .concurrent)
        let log = CompletionSpy<String>()
        for index in 1...8 { queue.async { log.record("\(index)") } }
        await waitForQueue(queue)
        #expect(log.calls.sorted() == (1...8).map { "\($0)" }.sorted())
    }

    @Test func aCancelledWaitEndsWhileTheQueueIsHeld() async {
        let queue = DispatchQueue(label: "waitForQueue.held")
        let release = DispatchSemaphore(value: 0)
        let held = CompletionSpy<Void>()
        queue.async {
            held.record(())
            release.wait()
        }
        await held.firstCall()
        let waiting = Task { await waitForQueue(queue) }
        waiting.cancel()
        await waiting.value   // ends although the queue has not run its block
        release.signal()
        await waitForQueue(queue)   // the cancelled wait's block runs, and resumes nothing twice
    }
}
