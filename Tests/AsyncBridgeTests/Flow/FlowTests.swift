import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("Flow: subscribing, grammar, bags", .timeLimit(.minutes(1)))
struct FlowTests {
    @Test func aSubscriberSeesValuesThenOneCompletion() {
        let events = Box<[FlowEvent<Int, Never>]>([])
        _ = Flow<Int, Never>.sequence([1, 2, 3]).subscribe { event in events.value.append(event) }
        #expect(events.value == [.value(1), .value(2), .value(3), .finished])
    }

    @Test func aFlowIsColdEachSubscriptionRunsTheSource() {
        let runs = AtomicCounter()
        let flow = Flow<Int, Never>.create { emitter in
            runs.increment()
            emitter.send(runs.value)
            emitter.finish()
        }
        #expect(FlowRecorder(flow).values == [1])
        #expect(FlowRecorder(flow).values == [2])
    }

    @Test func branchesMayReturnDifferentlyBuiltFlowsWithoutErasure() {
        func results(for query: String) -> Flow<String, Never> {
            if query.isEmpty { return .empty }  // Combine needs Empty().eraseToAnyPublisher()
            if query == "ada" { return .just("Ada") }
            return Flow.sequence([query, query.uppercased()]).map { "\($0)!" }
        }
        #expect(FlowRecorder(results(for: "")).events == [.finished])
        #expect(FlowRecorder(results(for: "ada")).values == ["Ada"])
        #expect(FlowRecorder(results(for: "x")).values == ["x!", "X!"])
    }

    @Test func nothingArrivesAfterTheCompletion() {
        let recorder = FlowRecorder(Flow<Int, Never>.create { emitter in
            emitter.send(1)
            emitter.finish()
            emitter.send(2)
            emitter.finish()
        })
        #expect(recorder.events == [.value(1), .finished])
    }

    @Test func aBagCancelsWhatItHoldsWhenReleasedOrEmptied() {
        let cancels = AtomicCounter()
        let flow = Flow<Int, Never>.create { emitter in emitter.onCancel { cancels.increment() } }
        var bag: CancellationBag? = CancellationBag()
        flow.subscribe { _ in }.store(in: bag!)
        flow.subscribe { _ in }.store(in: bag!)
        #expect(bag!.count == 2)
        bag = nil
        #expect(cancels.value == 2)
        let reused = CancellationBag()
        flow.subscribe { _ in }.store(in: reused)
        reused.cancelAll()
        #expect(cancels.value == 3 && reused.count == 0)
    }

    @Test func subscriptionsReleaseTheirSubscriberAfterCompletionAndCancellation() {
        weak var completedCapture: Tracked?
        weak var cancelledCapture: Tracked?
        let held = Box<FlowEmitter<Int, Never>?>(nil)
        do {
            let first = Tracked()
            let second = Tracked()
            completedCapture = first
            cancelledCapture = second
            _ = Flow<Int, Never>.just(1).subscribe { _ in _ = first }
            let token = Flow<Int, Never>.create { held.value = $0 }.subscribe { _ in _ = second }
            token.cancel()
        }
        #expect(completedCapture == nil)
        #expect(cancelledCapture == nil, "the emitter still exists, but dropped the subscriber")
        held.value?.send(1)
    }
}
