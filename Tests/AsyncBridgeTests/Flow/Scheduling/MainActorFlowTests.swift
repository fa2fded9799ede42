import AsyncBridge
import AsyncBridgeTesting
import Dispatch
import Testing

/// A view model as an app writes it: main-actor state, changed from the handlers directly.
/// Every handler checks that it runs on the main queue (under `swift test` on Linux the main
/// queue is drained by a worker thread, so `Thread.isMainThread` would not tell).
@MainActor
private final class ViewModel {
    var titles: [String] = []
    var title = ""
    var count = 0
    var completions: [FlowCompletion<TestError>] = []
    var loads: [Int] = []
    let bag = CancellationBag()
    private var waiter: CheckedContinuation<Void, Never>?

    func posts(for id: Int) -> Flow<String, TestError> {
        dispatchPrecondition(condition: .onQueue(.main))
        loads.append(id)
        return .sequence(["\(id)a", "\(id)b"])
    }

    func show(_ title: String) {
        dispatchPrecondition(condition: .onQueue(.main))
        titles.append(title)
    }

    func finished(_ completion: FlowCompletion<TestError>) {
        dispatchPrecondition(condition: .onQueue(.main))
        completions.append(completion)
        waiter?.resume()
        waiter = nil
    }

    /// Waits until ``finished(_:)`` has been called.
    func untilFinished() async {
        if !completions.isEmpty { return }
        await withCheckedContinuation { waiter = $0 }
    }
}

/// Sends `values` from a thread of its own, then fails with code 9 if `fail`, else finishes.
private func sendFromAnotherThread(_ values: [String], to subject: LiveSubject<String, TestError>, fail: Bool = false) {
    DispatchQueue.global().async {
        for value in values { subject.send(value) }
        if fail { subject.fail(TestError(code: 9)) } else { subject.finish() }
    }
}

@Suite("MainActorFlow: a main-actor view model consumes a flow", .timeLimit(.minutes(1)))
@MainActor
struct MainActorFlowTests {
    @Test func handlersChangeMainActorStateInOrder() async {
        let viewModel = ViewModel()
        let subject = LiveSubject<String, TestError>()
        subject.flow.receive(on: MainActor.shared)
            .subscribe(
                onValue: { viewModel.show($0) },
                onCompletion: { viewModel.finished($0) }
            )
            .store(in: viewModel.bag)
        sendFromAnotherThread(["a", "b", "c"], to: subject, fail: true)
        await viewModel.untilFinished()
        #expect(viewModel.titles == ["a", "b", "c"])
        #expect(viewModel.completions == [.failure(TestError(code: 9))])
    }

    @Test func subscribeWithHandsTheOwnerToHandlersOnTheMainActor() async {
        let viewModel = ViewModel()
        let subject = LiveSubject<String, TestError>()
        subject.flow.receive(on: MainActor.shared)
            .subscribe(with: viewModel) { viewModel, title in
                viewModel.title = title
                viewModel.show(title)
            } onCompletion: { viewModel, completion in
                viewModel.finished(completion)
            }
            .store(in: viewModel.bag)
        sendFromAnotherThread(["x", "y"], to: subject)
        await viewModel.untilFinished()
        #expect(viewModel.titles == ["x", "y"])
        #expect(viewModel.title == "y")
        #expect(viewModel.completions == [.finished])
    }

    @Test func eventsSentOnTheMainActorAreDeliveredLaterNotInsideTheSend() async {
        let viewModel = ViewModel()
        let subject = LiveSubject<String, TestError>()
        subject.flow.receive(on: MainActor.shared)
            .subscribe(with: viewModel) { viewModel, title in viewModel.show(title) }
            .store(in: viewModel.bag)
        subject.send("now")
        #expect(viewModel.titles.isEmpty, "delivered synchronously inside send")
        await waitForMainQueue()
        #expect(viewModel.titles == ["now"])
    }

    @Test func nothingArrivesAfterACancelOnTheMainActor() async {
        let viewModel = ViewModel()
        let subject = LiveSubject<String, TestError>()
        let token = subject.flow.receive(on: MainActor.shared)
            .subscribe(with: viewModel) { viewModel, title in viewModel.show(title) }
        subject.send("1")
        subject.send("2")
        token.cancel()  // both are waiting for the main queue
        await waitForMainQueue()
        #expect(viewModel.titles.isEmpty)
    }

    @Test func assignWritesEveryValueAndDoesNotKeepItsObjectAlive() async {
        var viewModel: ViewModel? = ViewModel()
        weak let watched = viewModel
        let counts = LiveSubject<Int, Never>()
        let token = counts.flow.receive(on: MainActor.shared).assign(to: \.count, on: viewModel!)
        counts.send(1)
        counts.send(2)
        await waitForMainQueue()
        #expect(viewModel?.count == 2)
        viewModel = nil
        #expect(watched == nil, "assign(to:on:) kept its object alive")
        counts.send(3)  // the subscription ends itself at the next value
        await waitForMainQueue()
        token.cancel()
    }

    @Test func flatMapWeakCallsTheOwnersMainActorMethod() async {
        let viewModel = ViewModel()
        let ids = LiveSubject<Int, TestError>()
        let posts = ids.flow.receive(on: MainActor.shared)
            .flatMap(weak: viewModel) { viewModel, id in viewModel.posts(for: id) }
        posts.subscribe(with: viewModel) { viewModel, post in
            viewModel.show(post)
        } onCompletion: { viewModel, completion in
            viewModel.finished(completion)
        }.store(in: viewModel.bag)
        DispatchQueue.global().async {
            ids.send(1)
            ids.send(2)
            ids.finish()
        }
        await viewModel.untilFinished()
        #expect(viewModel.loads == [1, 2])
        #expect(viewModel.titles == ["1a", "1b", "2a", "2b"])
    }

    @Test func flatMapLatestWeakCallsTheOwnersMainActorMethod() async {
        let viewModel = ViewModel()
        let ids = LiveSubject<Int, TestError>()
        ids.flow.receive(on: MainActor.shared)
            .flatMapLatest(weak: viewModel) { viewModel, id in viewModel.posts(for: id) }
            .subscribe(with: viewModel) { viewModel, post in
                viewModel.show(post)
            } onCompletion: { viewModel, completion in
                viewModel.finished(completion)
            }
            .store(in: viewModel.bag)
        DispatchQueue.global().async {
            ids.send(3)
            ids.finish()
        }
        await viewModel.untilFinished()
        #expect(viewModel.loads == [3])
        #expect(viewModel.titles == ["3a", "3b"])
    }

    @Test func aDriverReplacesTheFailureSharesOneRunAndReplaysTheLatest() async {
        let viewModel = ViewModel()
        let runs = AtomicCounter()
        let subject = LiveSubject<String, TestError>()
        let source = Flow<String, TestError>.deferred {
            runs.increment()
            return subject.flow
        }
        let driver = source.driver(replacingFailureWith: "offline")
        driver.subscribe(with: viewModel) { viewModel, title in viewModel.show(title) }.store(in: viewModel.bag)
        subject.send("first")
        await waitForMainQueue()
        let late = Box<[String]>([])
        driver.subscribe(onValue: { late.value.append($0) }, onCompletion: { _ in }).store(in: viewModel.bag)
        subject.fail(TestError(code: 1))
        await waitForMainQueue()
        await waitForMainQueue()
        #expect(runs.value == 1, "the driver subscribed to its source more than once")
        #expect(viewModel.titles == ["first", "offline"])
        #expect(late.value == ["first", "offline"])
    }

    @Test func theFlowOfAMainActorFlowIsStillDeliveredOnTheMainQueue() async {
        let delivered = CompletionSpy<Bool>()
        let subject = LiveSubject<Int, Never>()
        let token = subject.flow.receive(on: MainActor.shared).flow
            .map { $0 * 2 }
            .subscribe(onValue: { _ in
                dispatchPrecondition(condition: .onQueue(.main))
                delivered.record(true)
            }, onCompletion: { _ in })
        DispatchQueue.global().async { subject.send(1) }
        #expect(await delivered.firstCall())
        token.cancel()
    }

    @Test func aFlowStartedOnTheMainActorMayCallAMainActorClass() async {
        let viewModel = ViewModel()
        let flow = Flow<String, TestError>.create { emitter in
            // Traps unless the start really runs on the main actor.
            let posts = MainActor.assumeIsolated { viewModel.posts(for: 5) }
            _ = posts.subscribe { event in
                switch event {
                case .value(let post): emitter.send(post)
                case .finished: emitter.finish()
                case .failure(let error): emitter.fail(error)
                }
            }
        }.subscribe(on: MainActor.shared)
        let recorder = FlowRecorder(flow)
        await recorder.waitForCompletion()
        #expect(recorder.values == ["5a", "5b"])
        #expect(viewModel.loads == [5])
    }
}
