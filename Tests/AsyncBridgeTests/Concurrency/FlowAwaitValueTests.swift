import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("Flow → await: firstValue, lastValue, singleValue", .timeLimit(.minutes(1)))
struct FlowAwaitValueTests {
    @Test func firstValueCancelsTheSubscriptionOnceItHasArrived() async throws {
        let source = ManualSource<Int>()
        let first = Task { try await source.flow.firstValue }
        await source.subscribed()
        source.send(1)
        #expect(try await first.value == 1)
        #expect(source.cancels.value == 1)
        source.send(2)  // ignored
    }

    @Test func firstValueStopsASynchronousSource() async throws {
        let delivered = AtomicCounter()
        let flow = Flow<Int, Never>.sequence(1...1_000).handleEvents(onValue: { _ in delivered.increment() })
        #expect(try await flow.firstValue == 1)
        #expect(delivered.value == 1)
    }

    @Test func theErrorsOfAFlowWithTheWrongNumberOfValues() async throws {
        await #expect(throws: AsyncBridgeError.noValue) { try await Flow<Int, Never>.empty.firstValue }
        await #expect(throws: AsyncBridgeError.noValue) { try await Flow<Int, Never>.empty.lastValue }
        await #expect(throws: AsyncBridgeError.noValue) { try await Flow<Int, Never>.empty.singleValue }
        await #expect(throws: AsyncBridgeError.moreThanOneValue) {
            try await Flow<Int, Never>.sequence([1, 2]).singleValue
        }
    }

    @Test func theFlowsFailureIsThrown() async throws {
        let failing = Flow<Int, TestError>.fail(TestError(code: 4))
        await #expect(throws: TestError(code: 4)) { try await failing.firstValue }
        await #expect(throws: TestError(code: 4)) { try await failing.lastValue }
        await #expect(throws: TestError(code: 4)) { try await failing.singleValue }
        let afterOne = Flow<Int, TestError>.create { emitter in
            emitter.send(1)
            emitter.fail(TestError(code: 5))
        }
        #expect(try await afterOne.firstValue == 1, "the first value wins over a later failure")
        await #expect(throws: TestError(code: 5)) { try await afterOne.lastValue }
    }

    @Test func lastValueWaitsForTheFinish() async throws {
        let source = ManualSource<Int>()
        let last = Task { try await source.flow.lastValue }
        await source.subscribed()
        for value in 1...3 { source.send(value) }
        source.finish()
        #expect(try await last.value == 3)
        #expect(source.cancels.value == 0)
    }

    @Test func singleValueFailsAtTheSecondValueAndCancels() async throws {
        let source = ManualSource<Int>()
        let single = Task { try await source.flow.singleValue }
        await source.subscribed()
        source.send(1)
        source.send(2)
        await #expect(throws: AsyncBridgeError.moreThanOneValue) { try await single.value }
        #expect(source.cancels.value == 1)
        #expect(try await Flow<Int, Never>.just(7).singleValue == 7)
    }

    @Test func cancellingTheAwaitingTaskThrowsCancellationErrorAndCancels() async throws {
        for accessor in 0..<3 {
            let source = ManualSource<Int>()
            let waiting = Task {
                switch accessor {
                case 0: try await source.flow.firstValue
                case 1: try await source.flow.lastValue
                default: try await source.flow.singleValue
                }
            }
            await source.subscribed()
            if accessor > 0 { source.send(1) }
            waiting.cancel()
            await #expect(throws: CancellationError.self) { try await waiting.value }
            #expect(source.cancels.value == 1)
        }
    }

    @Test func aSilentFlowWaitsUntilCancelled() async throws {
        let misuses = MisuseRecorder()
        await misuses.record {
            // Subscribes, then lets its subscriber go, as `Flow.never` does.
            let subscribed = Countdown(1)
            let silent = Flow<Int, Never>.create { _ in subscribed.arrive() }
            let waiting = Task { try await silent.firstValue }
            await subscribed.wait()
            waiting.cancel()
            await #expect(throws: CancellationError.self) { try await waiting.value }
        }
        #expect(misuses.misuses.isEmpty, "a flow that lets its subscriber go is not a broken completion")
    }

    @Test func eachAwaitSubscribesAgain() async throws {
        let runs = AtomicCounter()
        let flow = Flow<Int, Never>.deferred { runs.increment(); return .just(runs.value) }
        #expect(try await flow.firstValue == 1)
        #expect(try await flow.lastValue == 2)
        #expect(runs.value == 2)
    }
}
