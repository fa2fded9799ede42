import Dispatch
import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("Completion blocks → await (withCompletion)", .timeLimit(.minutes(1)))
struct WithCompletionTests {
    @Test(arguments: [false, true])
    func everyShapeSucceedsAndFails(synchronous: Bool) async throws {
        let api = LegacyAPI(synchronous: synchronous)
        #expect(try await withCompletion { api.user(id: 2, completion: $0) } == "user2")
        await #expect(throws: TestError(code: -2)) { try await withCompletion { api.user(id: -2, completion: $0) } }
        #expect(try await withCompletion { api.data(id: 5, completion: $0) } == "data5")
        await #expect(throws: TestError(code: -5)) { try await withCompletion { api.data(id: -5, completion: $0) } }
        await #expect(throws: AsyncBridgeError.missingValueAndError) { try await withCompletion { api.data(id: 0, completion: $0) } }
        try await withCompletion { api.save(failing: false, completion: $0) }
        await #expect(throws: TestError(code: 2)) { try await withCompletion { api.save(failing: true, completion: $0) } }
        #expect(try await withValueCompletion { api.status(completion: $0) } == 200)
        try await withCompletion { api.ping(completion: $0) }
    }

    @Test func cancellingTheTaskRunsTheCancelActionOnceAndThrowsCancellationError() async throws {
        let operation = PendingOperation<Result<Int, TestError>>()
        let task = Task {
            try await withCompletion { completion, onCancel in
                operation.start(completion)
                onCancel { operation.cancel() }
            }
        }
        await operation.waitUntilStarted()
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(operation.cancels == 1)
        #expect(!operation.complete(.success(1)), "the cancel action released the completion block")
    }

    @Test func everyActionGivenToOnCancelRunsOnceInOrderAndNoneAfterCompletion() async throws {
        let log = Box<[String]>([])
        let operation = PendingOperation<Result<Int, TestError>>()
        let task = Task {
            try await withCompletion { completion, onCancel in
                operation.start(completion)
                onCancel { log.value.append("first") }
                onCancel { log.value.append("second") }
            }
        }
        await operation.waitUntilStarted()
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(log.value == ["first", "second"])

        let completed = try await withCompletion { (completion: @escaping @Sendable (Result<Int, TestError>) -> Void, onCancel) in
            onCancel { log.value.append("after completion") }
            completion(.success(7))
        }
        #expect(completed == 7)
        #expect(log.value == ["first", "second"])
    }

    @Test func aPreCancelledTaskCallsTheCancelActionOnce() async throws {
        let operation = PendingOperation<Result<Int, TestError>>()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await withCompletion { completion, onCancel in
                operation.start(completion)
                onCancel { operation.cancel() }
            }
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(operation.starts == 1)
        #expect(operation.cancels == 1)
    }

    @Test func aCancelBeforeTheCancelActionIsHandedBackRunsItOnceItIs() async throws {
        let cancels = AtomicCounter()
        await #expect(throws: CancellationError.self) {
            try await withCompletion { (_: @escaping @Sendable (Result<Int, TestError>) -> Void, onCancel) in
                withUnsafeCurrentTask { $0?.cancel() }
                #expect(cancels.value == 0)
                onCancel { cancels.increment() }
            }
        }
        #expect(cancels.value == 1)
    }

    @Test func aPreCancelledTaskWhoseCompletionComesAtOnceGetsTheValue() async throws {
        let cancels = AtomicCounter()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await withCompletion { (completion: @escaping @Sendable (Result<Int, TestError>) -> Void, onCancel) in
                completion(.success(5))
                onCancel { cancels.increment() }
            }
        }
        #expect(try await task.value == 5)
        #expect(cancels.value == 0, "never cancel after completion")
    }

    @Test func aCancelWhileTheCompletionIsPendingWinsOverADroppedBlock() async throws {
        // The operation cancels the task and drops its completion block while starting: the
        // cancellation is seen first (CancellationError, cancel action once, no misuse).
        let recorder = MisuseRecorder()
        let cancels = AtomicCounter()
        await #expect(throws: CancellationError.self) {
            try await recorder.record {
                try await withCompletion { (_: @escaping @Sendable (Result<Int, TestError>) -> Void, onCancel) in
                    withUnsafeCurrentTask { $0?.cancel() }
                    onCancel { cancels.increment() }
                }
            }
        }
        #expect(cancels.value == 1)
        #expect(recorder.misuses.isEmpty)
    }

    @Test func aNeverCalledCompletionThrowsInsteadOfHanging() async throws {
        let recorder = MisuseRecorder()
        let line = #line + 2  // outside `#expect`, whose expansion would be the call site
        let result = await recorder.record {
            await Result { try await withCompletion { (_: @escaping @Sendable (Result<Int, TestError>) -> Void) in } }
        }
        #expect(throws: AsyncBridgeError.completionNeverCalled) { try result.get() }
        let threw = "the call threw AsyncBridgeError.completionNeverCalled"
        #expect(recorder.expectable == reported([ExpectedReport(.completionNeverCalled, "withCompletion", line: line, threw)]))
        let operation = PendingOperation<Int>()
        let valueRecorder = MisuseRecorder()
        let (task, valueLine) = valueRecorder.record { (Task { try await withValueCompletion { operation.start($0) } }, #line) }
        await operation.waitUntilStarted()
        operation.drop()
        await #expect(throws: AsyncBridgeError.completionNeverCalled) { try await task.value }
        #expect(valueRecorder.expectable == reported([ExpectedReport(.completionNeverCalled, "withValueCompletion", line: valueLine, threw)]))
    }

    @Test func aNeverCalledCompletionStillLetsACancelledTaskGo() async throws {
        let operation = PendingOperation<Int>()
        let task = Task { try await withValueCompletion { operation.start($0) } }  // no cancel action
        await operation.waitUntilStarted()
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(operation.isHoldingCompletion)
    }

    @Test func aSynchronousCompletionInsideTheCallIsNotLost() async throws {
        let value = try await withCompletion { (completion: @escaping @Sendable (Result<Int, TestError>) -> Void) in
            completion(.success(1))
            completion(.success(2))
        }
        #expect(value == 1)
    }

    @Test func aCompletionFromAnotherThreadWhileTheOperationStartsIsServed() async throws {
        // The operation calls its completion on another thread, twice, and returns only after
        // both calls: the first is kept for the caller while the operation starts, the second
        // is ignored and reported, and the cancel action is dropped unused.
        let recorder = MisuseRecorder()
        let cancels = AtomicCounter()
        let line = #line + 2
        let value = try await recorder.record {
            try await withCompletion { (completion: @escaping @Sendable (Result<Int, TestError>) -> Void, onCancel) in
                let called = DispatchSemaphore(value: 0)
                DispatchQueue(label: "completer").async {
                    completion(.success(7))
                    completion(.success(8))
                    called.signal()
                }
                called.wait()
                onCancel { cancels.increment() }
            }
        }
        #expect(value == 7)
        #expect(recorder.expectable == reported([
            ExpectedReport(.completionCalledMoreThanOnce, "withCompletion", line: line, "the later call was ignored"),
        ]))
        #expect(cancels.value == 0, "never cancel after completion")
    }

    @Test func aCompletionRacingTheOperationsReturnIsServedOnceAndNeverCancelled() async throws {
        // The completion comes on another thread while the operation is returning: either
        // before the caller decides to wait (kept for it) or after (forwarded to its wait).
        let queue = DispatchQueue(label: "completer")
        let cancels = AtomicCounter()
        for round in 0..<10_000 {
            let value = try await withCompletion { (completion: @escaping @Sendable (Result<Int, TestError>) -> Void, onCancel) in
                queue.async { completion(.success(round)) }
                onCancel { cancels.increment() }
            }
            #expect(value == round)
        }
        #expect(cancels.value == 0)
    }

    @Test func aValueDeliveredWhileStartingIsNotKeptByTheCompletionBlock() async throws {
        // The API keeps its completion block after calling it (as many do until they are torn
        // down): the value handed to the caller must not live on in the block.
        let heldBlock = Box<(@Sendable (Result<Tracked, Never>) -> Void)?>(nil)
        weak var delivered: Tracked?
        do {
            let value = try await withCompletion { (completion: @escaping @Sendable (Result<Tracked, Never>) -> Void) in
                heldBlock.value = completion
                completion(.success(Tracked()))
            }
            delivered = value
        }
        #expect(heldBlock.value != nil)
        #expect(delivered == nil)
    }

    @Test @MainActor func theClosureRunsOnTheCallersActor() async throws {
        let value = try await withCompletion { (completion: @escaping @Sendable (Result<Int, TestError>) -> Void) in
            MainActor.assertIsolated()
            DispatchQueue.global().async { completion(.success(3)) }
        }
        #expect(value == 3)
    }

    @Test func twoThreadsCallingTheCompletionAtOnceResumeOnce() async throws {
        for round in 0..<10_000 {
            let recorder = MisuseRecorder()
            let bothCalled = CompletionSpy<Void>()
            let value = try await recorder.record {
                try await withCompletion { (completion: @escaping @Sendable (Result<Int, Never>) -> Void) in
                    DispatchQueue.global().async {
                        DispatchQueue.concurrentPerform(iterations: 2) { completion(.success(round * 2 + $0)) }
                        bothCalled.record(())
                    }
                }
            }
            #expect(value == round * 2 || value == round * 2 + 1)
            await bothCalled.firstCall()
            #expect(recorder.misuses == reported([.completionCalledMoreThanOnce]))
        }
    }

    @Test func cancelRacingCompletionGivesOneOutcomeAndCancelsAtMostOnce() async throws {
        for _ in 0..<10_000 {
            let operation = PendingOperation<Result<Int, Never>>()
            let task = Task {
                try await withCompletion { completion, onCancel in
                    operation.start(completion)
                    onCancel { operation.cancel() }
                }
            }
            await operation.waitUntilStarted()
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                if index == 0 { task.cancel() } else { operation.complete(.success(1)) }
            }
            switch await task.result {
            case .success(let value): #expect(value == 1 && operation.cancels == 0)
            case .failure(let error): #expect(error is CancellationError && operation.cancels == 1)
            }
        }
    }

    @Test func nothingIsRetainedAfterCompletionOrCancellation() async throws {
        weak var completed: Tracked?
        weak var cancelled: Tracked?
        let operation = PendingOperation<Result<Int, Never>>()
        do {
            let first = Tracked()
            let second = Tracked()
            completed = first
            cancelled = second
            _ = try await withCompletion { (completion: @escaping @Sendable (Result<Int, Never>) -> Void) in
                _ = first  // the operation holds it; the block it dispatches must not, or its release races the check
                DispatchQueue.global().async { completion(.success(1)) }
            }
            let task = Task {
                try await withCompletion { completion, onCancel in
                    operation.start { _ = second; completion($0) }
                    onCancel { operation.cancel() }
                }
            }
            await operation.waitUntilStarted()
            task.cancel()
            _ = await task.result
        }
        #expect(completed == nil)
        #expect(cancelled == nil)
    }
}
