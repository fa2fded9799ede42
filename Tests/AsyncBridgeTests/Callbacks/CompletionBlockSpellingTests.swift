import Testing
import AsyncBridge
import AsyncBridgeTesting

/// Every documented way of writing a completion-block body compiles (compiling is half the
/// test) and picks the overload it means: the shape the body names, and the cancellable form
/// exactly when the body returns a cancel action. The spellings that must not compile are in
/// `.ci/compile-fails/`.
///
/// The bodies have several statements on purpose: a single expression picks its overload by
/// itself, a body of several statements used to be ambiguous between the plain and the
/// cancellable form of every shape but `Result`, even with the block's type named.
@Suite("Completion-block spellings", .timeLimit(.minutes(1)))
struct CompletionBlockSpellingTests {
    let api = LegacyAPI(synchronous: true)

    // MARK: The block's type named (the spelling SharedFuture+Callbacks.swift documents)

    @Test func aFutureBodyThatNamesItsBlockTypeIsPlainWithoutReturn() async throws {
        let calls = AtomicCounter()
        let api = api
        let future = SharedFuture { (completion: @escaping @Sendable (String?, (any Error)?) -> Void) in
            calls.increment()
            api.data(id: 0, completion: completion)
        }
        // (nil, nil) is a broken contract only for the (T?, Error?) shape.
        await #expect(throws: AsyncBridgeError.missingValueAndError) { try await future.value }
        #expect(calls.value == 1)
    }

    @Test func aWithCompletionBodyThatNamesItsBlockTypeIsPlainWithoutReturn() async throws {
        let calls = AtomicCounter()
        await #expect(throws: TestError(code: 2)) {
            try await withCompletion { (completion: @escaping @Sendable ((any Error)?) -> Void) in
                calls.increment()
                api.save(failing: true, completion: completion)
            }
        }
        #expect(calls.value == 1)
    }

    @Test func aFlowBodyThatNamesItsBlockTypeIsPlainWithoutReturn() async throws {
        let calls = AtomicCounter()
        let api = api
        let saved = Flow { (completion: @escaping @Sendable ((any Error)?) -> Void) in
            calls.increment()
            api.save(failing: false, completion: completion)
        }
        #expect(FlowRecorder(saved).events.count == 2)   // .value(()), .finished
        #expect(calls.value == 1)
    }

    @Test func aBodyThatNamesItsBlockTypeAndReturnsIsCancellable() async throws {
        let cancels = AtomicCounter()
        let held = Box<(any Sendable)?>(nil)   // keeps the block uncalled, as a running operation does
        let future = SharedFuture { (completion: @escaping @Sendable (String?, (any Error)?) -> Void, onCancel) in
            held.value = completion   // never called: the consumer leaves first
            onCancel { cancels.increment() }
        }
        future.subscribe { _ in }.cancel()
        #expect(cancels.value == 1)
    }

    @Test func theExplicitVoidResultStillWorks() async throws {
        let api = api
        let future = SharedFuture { (completion: @escaping @Sendable (String?, (any Error)?) -> Void) -> Void in
            let id = 1
            api.data(id: id, completion: completion)
        }
        #expect(try await future.value == "data1")
    }

    // MARK: The block's type left to the body

    @Test func aBodyOfSeveralStatementsPicksTheShapeItsBlockIsUsedAs() async throws {
        let api = api
        let result = SharedFuture<String, TestError> { completion in
            let id = 1
            api.user(id: id, completion: completion)
        }
        let optionals = SharedFuture<String, any Error> { completion in
            let id = 0
            api.data(id: id, completion: completion)
        }
        let error = SharedFuture<Void, any Error> { completion in
            let failing = true
            api.save(failing: failing, completion: completion)
        }
        let signal = SharedFuture<Void, Never> { completion in
            let ignored = 0
            _ = ignored
            api.ping(completion: completion)
        }
        let value = SharedFuture<Int, Never>.neverFailing { completion in
            let ignored = 0
            _ = ignored
            api.status(completion: completion)
        }
        #expect(try await result.value == "user1")
        await #expect(throws: AsyncBridgeError.missingValueAndError) { try await optionals.value }
        await #expect(throws: TestError(code: 2)) { try await error.value }
        try await signal.value
        #expect(try await value.value == 200)
    }

    @Test func aWithCompletionBodyOfSeveralStatementsPicksItsShape() async throws {
        let user: String = try await withCompletion { completion in
            let id = 1
            api.user(id: id, completion: completion)
        }
        let data: String = try await withCompletion { completion in
            let id = 2
            api.data(id: id, completion: completion)
        }
        try await withCompletion { completion in
            let failing = false
            api.save(failing: failing, completion: completion)
        }
        try await withCompletion { completion in
            let ignored = 0
            _ = ignored
            api.ping(completion: completion)
        }
        let status = try await withValueCompletion { completion in
            let ignored = 0
            _ = ignored
            api.status(completion: completion)
        }
        #expect([user, data] == ["user1", "data2"])
        #expect(status == 200)
    }

    @Test func aFlowBodyOfSeveralStatementsPicksItsShape() {
        let api = api
        let data = Flow<String, any Error> { completion in
            let id = 3
            api.data(id: id, completion: completion)
        }
        let ping = Flow<Void, Never> { completion in
            let ignored = 0
            _ = ignored
            api.ping(completion: completion)
        }
        #expect(FlowRecorder(data).values == ["data3"])
        #expect(FlowRecorder(ping).events.count == 2)   // .value(()), .finished
    }

    // MARK: Returning a cancel action

    @Test func aBodyThatReturnsACancelActionIsCancellableInEveryShape() {
        let cancels = AtomicCounter()
        let held = Box<(any Sendable)?>(nil)   // keeps the block uncalled, as a running operation does
        let futures: [SharedFuture<Void, any Error>] = [
            SharedFuture { (completion: @escaping @Sendable (Result<Void, any Error>) -> Void, onCancel) in
                held.value = completion
                onCancel { cancels.increment() }
            },
            SharedFuture { (completion: @escaping @Sendable ((any Error)?) -> Void, onCancel) in
                held.value = completion
                onCancel { cancels.increment() }
            },
            SharedFuture { (completion: @escaping @Sendable ((), (any Error)?) -> Void, onCancel) in
                held.value = completion
                onCancel { cancels.increment() }
            },
        ]
        for future in futures { future.subscribe { _ in }.cancel() }
        // A body that only holds its block does not say its shape: it names the block's type.
        let signal = SharedFuture { (completion: @escaping @Sendable () -> Void, onCancel) in
            held.value = completion
            onCancel { cancels.increment() }
        }
        signal.subscribe { _ in }.cancel()
        let value = SharedFuture<Int, Never>.neverFailing { completion, onCancel in
            held.value = completion
            onCancel { cancels.increment() }
        }
        value.subscribe { _ in }.cancel()
        #expect(cancels.value == 5)
    }

    @Test func aWithCompletionBodyThatReturnsACancelActionRunsItWhenTheTaskIsCancelled() async {
        let cancels = AtomicCounter()
        let held = Box<(any Sendable)?>(nil)   // keeps the block uncalled, as a running operation does
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await withCompletion { (completion: @escaping @Sendable ((any Error)?) -> Void, onCancel) in
                held.value = completion   // never called: the task is cancelled
                onCancel { cancels.increment() }
            }
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(cancels.value == 1)
    }

    @Test func aFlowBodyThatReturnsACancelActionRunsItWhenTheSubscriptionIsCancelled() {
        let cancels = AtomicCounter()
        let held = Box<(any Sendable)?>(nil)   // keeps the block uncalled, as a running operation does
        let upload = Flow { (completion: @escaping @Sendable ((any Error)?) -> Void, onCancel) in
            held.value = completion
            onCancel { cancels.increment() }
        }
        upload.subscribe { _ in }.cancel()
        #expect(cancels.value == 1)
    }
}
