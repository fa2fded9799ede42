import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("Completion blocks → SharedFuture", .timeLimit(.minutes(1)))
struct FutureCallbacksTests {
    @Test(arguments: [false, true])
    func resultShape(synchronous: Bool) async throws {
        let api = LegacyAPI(synchronous: synchronous)
        #expect(try await SharedFuture { api.user(id: 1, completion: $0) }.value == "user1")
        #expect(try await SharedFuture { api.user(id: -3, completion: $0) }.result == .failure(TestError(code: -3)))
    }

    @Test(arguments: [false, true])
    func optionalValueAndErrorShape(synchronous: Bool) async throws {
        let api = LegacyAPI(synchronous: synchronous)
        #expect(try await SharedFuture { api.data(id: 1, completion: $0) }.value == "data1")
        await #expect(throws: TestError(code: -1)) { try await SharedFuture { api.data(id: -1, completion: $0) }.value }
        await #expect(throws: AsyncBridgeError.missingValueAndError) {
            try await SharedFuture { api.data(id: 0, completion: $0) }.value
        }
    }

    @Test func anErrorWinsOverAValue() async throws {
        let future = SharedFuture<Int, any Error> { completion in completion(1, TestError()) }
        await #expect(throws: TestError()) { try await future.value }
    }

    @Test(arguments: [false, true])
    func errorOnlyShape(synchronous: Bool) async throws {
        let api = LegacyAPI(synchronous: synchronous)
        try await SharedFuture { api.save(failing: false, completion: $0) }.value
        await #expect(throws: TestError(code: 2)) { try await SharedFuture { api.save(failing: true, completion: $0) }.value }
    }

    @Test(arguments: [false, true])
    func valueOnlyShape(synchronous: Bool) async throws {
        let api = LegacyAPI(synchronous: synchronous)
        let status = SharedFuture.neverFailing { api.status(completion: $0) }
        #expect(try await status.value == 200)
    }

    @Test(arguments: [false, true])
    func signalShape(synchronous: Bool) async throws {
        let api = LegacyAPI(synchronous: synchronous)
        let pinged: SharedFuture<Void, Never> = SharedFuture { api.ping(completion: $0) }
        try await pinged.value
    }

    @Test func everyShapeHasACancellableForm() async throws {
        let results = PendingOperation<Result<Int, TestError>>()
        let optionals = PendingOperation<(Int?, (any Error)?)>()
        let errors = PendingOperation<(any Error)?>()
        let values = PendingOperation<Int>()
        let signals = PendingOperation<Void>()
        let futures: [SharedFuture<Void, any Error>] = [
            SharedFuture<Int, TestError> { completion, onCancel in results.start(completion); onCancel { results.cancel() } }
                .map { _ in }.mapError { $0 },
            SharedFuture<Int, any Error> { completion, onCancel in
                optionals.start { completion($0.0, $0.1) }
                onCancel { optionals.cancel() }
            }.map { _ in },
            SharedFuture<Void, any Error> { completion, onCancel in errors.start(completion); onCancel { errors.cancel() } },
            SharedFuture<Int, Never>.neverFailing { completion, onCancel in values.start(completion); onCancel { values.cancel() } }
                .map { _ in }.mapError { never -> any Error in },
            SharedFuture<Void, Never> { completion, onCancel in signals.start(completion); onCancel { signals.cancel() } }
                .mapError { never -> any Error in },
        ]
        for future in futures {
            let spy = CompletionSpy<Result<Void, any Error>>()
            future.subscribe(spy.completion).cancel()
            #expect(spy.calls.count == 1 && spy.calls.first?.isCancellation == true)
        }
        #expect([results.cancels, optionals.cancels, errors.cancels, values.cancels, signals.cancels] == [1, 1, 1, 1, 1])
    }

    @Test func everyActionGivenToOnCancelRunsOnceInOrder() {
        let log = Box<[String]>([])
        let operation = PendingOperation<Result<Int, TestError>>()
        let future = SharedFuture<Int, TestError> { completion, onCancel in
            operation.start(completion)
            onCancel { log.value.append("first") }
            onCancel { log.value.append("second") }
        }
        let token = future.subscribe { _ in }
        #expect(log.value.isEmpty)
        token.cancel()
        token.cancel()
        #expect(log.value == ["first", "second"])
    }
}
