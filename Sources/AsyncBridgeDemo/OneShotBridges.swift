import AsyncBridge
import Dispatch

/// The one-shot bridges: completion blocks ⇄ SharedFuture ⇄ async/await ⇄ Result.
enum OneShotBridges {
    static func run() async throws {
        let manager = UserManager.shared

        section("Completion block → await (withCompletion)")
        let ada = try await withCompletion { manager.getUser(withUserID: "u1", completion: $0) }
        print("loaded \(ada)")
        do {
            _ = try await withCompletion { manager.getUser(withUserID: "nobody", completion: $0) }
        } catch {
            print("typed failure arrives as an error: \(error)")
        }

        section("Completion block → SharedFuture: lazy, shared, memoised")
        let before = manager.requestCount
        let grace = SharedFuture { manager.getUser(withUserID: "u2", completion: $0) }
        print("created the future; requests sent: \(manager.requestCount - before)")
        async let first = grace.value
        async let second = grace.value
        print("two concurrent consumers got \(try await first.name) and \(try await second.name)")
        print("a late consumer gets \(try await grace.value.name) from memory")
        print("requests sent: \(manager.requestCount - before)")

        section("SharedFuture chains: user → group (flatMap)")
        let group = grace.flatMap { user in
            SharedFuture { manager.getUsers(withGroupID: user.groupID, completion: $0) }
        }
        print("group of Grace: \(list(try await group.value.map(\.name)))")

        section("SharedFuture → Result")
        switch try await SharedFuture({ manager.getUser(withUserID: "u9", completion: $0) }).result {
        case .success(let user): print("unexpected \(user)")
        case .failure(let error): print("future.result gave a typed Result<User, APIError>: failure, \(error)")
        }
        let stored: Result<User, APIError> = .failure(.notFound("u7"))
        func load() async throws(APIError) -> User { try stored.get() }   // Result → async throws(APIError)
        let roundTrip = await Result { () async throws(APIError) -> User in try await load() }
        print("Result → async throws(APIError) → Result keeps the type: \(roundTrip)")

        section("SharedFuture / async → completion block for old callers")
        try await withCompletion { (done: @escaping @Sendable () -> Void) in
            SharedFuture { manager.getUser(withUserID: "u3", completion: $0) }
                .subscribe(deliveringOn: .main) { result in
                    switch result {
                    case .success(let user): print("old caller's completion block, on the main queue: success, \(user.name)")
                    case .failure(let error): print("old caller's completion block, on the main queue: failure, \(error)")
                    }
                    done()
                }
        }

        section("Cancellation travels to the request")
        let cancelled = RequestLog()
        let requestSent = Signal()
        let slow = Task {
            try await withCompletion { completion, onCancel in
                let request = manager.getUser(withUserID: "u1", latencyMilliseconds: 10_000, completion: completion)
                requestSent.fire()
                onCancel {
                    cancelled.increment()
                    request.cancel()
                }
            }
        }
        await requestSent.wait()
        slow.cancel()
        do {
            _ = try await slow.value
        } catch {
            print("cancelled the task awaiting a 10 s request: it threw \(type(of: error)) at once, and the request's cancel action ran \(times(cancelled.count))")
        }

        section("A misbehaving API: completion called twice")
        let twice = try await AsyncBridgeDiagnostics.$handler.withValue({ print("diagnostics: \($0)") }) {
            try await withCompletion { (completion: @escaping @Sendable (Result<Int, Never>) -> Void) in
                completion(.success(1))
                completion(.success(2))
            }
        }
        print("the caller got the first call's value, \(twice); the second call was ignored")
    }
}
