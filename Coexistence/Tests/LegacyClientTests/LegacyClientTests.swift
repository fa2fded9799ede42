import Testing
@_spi(AsyncBridgeInternals) import AsyncBridge
import AsyncBridgeTesting
@testable import LegacyClient
import LegacyNetworking

/// Waits, without sleeping, until `condition` holds (the suites' time limit ends a wait that
/// never does).
func waitUntil(isolation: isolated (any Actor)? = #isolation, _ condition: () async -> Bool) async {
    while await !condition() { await Task.yield() }
}

extension ActorConfined<UserAPI> {
    /// Waits until `count` requests are pending; returns their request ids, oldest first.
    @discardableResult
    func pendingRequests(_ count: Int) async -> [Int] {
        await waitUntil { await run { $0.pendingRequests.count } == count }
        return await run { $0.pendingRequests.map(\.requestID) }
    }

    /// Waits until the requests `ids` were cancelled through their handle.
    func waitUntilCancelled(_ ids: [Int]) async {
        await waitUntil { await run { $0.cancelledRequestIDs } == ids }
    }

    func respond(to requestID: Int, with result: Result<User, APIError>) async {
        await run { $0.respond(to: requestID, with: result) }
    }
}

let ada = User(id: 1, name: "Ada")

/// Each bridge over the legacy service, used from nonisolated async code (these tests run on
/// the cooperative pool) and from the main actor (`LegacyClassOnTheMainActorTests`).
@Suite("Legacy class: bridges from nonisolated async code", .timeLimit(.minutes(1)))
struct LegacyClassTests {
    let users = ActorConfined(UserAPI(), to: MainActor.shared)
    var repository: UserRepository { UserRepository(users: users) }

    @Test func asyncGetsTheResponse() async throws {
        let repository = repository
        async let user = repository.user(id: 1)
        let ids = await users.pendingRequests(1)
        await users.respond(to: ids[0], with: .success(ada))
        #expect(try await user == ada)
        await #expect(throws: APIError.notFound) {
            async let missing = repository.user(id: 2)
            await users.respond(to: await users.pendingRequests(1)[0], with: .failure(.notFound))
            _ = try await missing
        }
    }

    @Test func cancellingTheTaskCancelsTheRequestOnItsActor() async throws {
        let repository = repository
        let task = Task { try await repository.user(id: 1) }
        let ids = await users.pendingRequests(1)
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        await users.waitUntilCancelled(ids)
        #expect(await users.run { $0.pendingRequests.isEmpty })
    }

    @Test func aFlowStartsOneRequestPerSubscriptionOnItsActor() async throws {
        let flow = repository.userFlow(id: 1)
        let first = FlowRecorder(flow)
        let second = FlowRecorder(flow)
        let ids = await users.pendingRequests(2)
        await users.respond(to: ids[0], with: .success(ada))
        await users.respond(to: ids[1], with: .failure(.offline))
        await first.waitForCompletion()
        await second.waitForCompletion()
        #expect(first.events == [.value(ada), .finished])
        #expect(second.events == [.failure(.offline)])
        #expect(await users.run { $0.requestCount } == 2)
    }

    @Test func cancellingASubscriptionCancelsItsRequest() async throws {
        let recorder = FlowRecorder(repository.userFlow(id: 1))
        let ids = await users.pendingRequests(1)
        recorder.cancel()
        await users.waitUntilCancelled(ids)
        #expect(recorder.events.isEmpty)
    }

    @Test func aSubscriptionCancelledBeforeItsStartHopNeverStartsARequest() async throws {
        // The start and the cancel each hop to the main actor; whichever comes first, the
        // request is not left running.
        let recorder = FlowRecorder(repository.userFlow(id: 1))
        recorder.cancel()
        await waitUntil {
            await users.run { $0.requestCount == $0.cancelledRequestIDs.count && $0.pendingRequests.isEmpty }
        }
        #expect(recorder.events.isEmpty)
    }

    @Test func aSharedFutureStartsOneRequestForAllItsConsumers() async throws {
        let future = repository.userFuture(id: 1)
        async let first = future.value
        async let second = future.value
        let ids = await users.pendingRequests(1)
        await users.respond(to: ids[0], with: .success(ada))
        #expect(try await [first, second] == [ada, ada])
        #expect(await users.run { $0.requestCount } == 1)
    }

    @Test func aSharedFutureWhoseConsumersLeaveCancelsItsRequest() async throws {
        let future = repository.userFuture(id: 1)
        let consumer = Task { try await future.value }
        let ids = await users.pendingRequests(1)
        consumer.cancel()
        await #expect(throws: CancellationError.self) { try await consumer.value }
        await users.waitUntilCancelled(ids)
    }

    @Test func singleFlightCallersShareOneRequest() async throws {
        let repository = repository
        let first = Task { try await repository.sharedUser(id: 1) }
        let ids = await users.pendingRequests(1)
        let second = Task { try await repository.sharedUser(id: 1) }
        await waitUntil { repository.flights.waiterCount(key: 1) == 2 }
        await users.respond(to: ids[0], with: .success(ada))
        #expect(try await [first.value, second.value] == [ada, ada])
        #expect(await users.run { $0.requestCount } == 1)
    }

    @Test func singleFlightCancelsTheRequestWhenItsLastCallerLeaves() async throws {
        let repository = repository
        let caller = Task { try await repository.sharedUser(id: 1) }
        let ids = await users.pendingRequests(1)
        caller.cancel()
        await #expect(throws: CancellationError.self) { try await caller.value }
        await users.waitUntilCancelled(ids)
    }

    @Test func nonisolatedCodeThatOwnsTheServiceAwaitsItDirectly() async throws {
        // `api` lives in the task: `withCompletion` runs the body and the cancel action there,
        // so no box is needed.
        let (name, cancelled) = await Task { await loadInACancelledTask() }.value
        #expect(name == nil)
        #expect(cancelled == [1])
    }
}

/// Loads with a service of its own in a task that is cancelled: the request starts, then is
/// cancelled, in this task, before the error comes back.
func loadInACancelledTask() async -> (name: String?, cancelled: [Int]) {
    let api = UserAPI()
    withUnsafeCurrentTask { $0?.cancel() }
    let name = try? await loadName(id: 1, with: api)
    return (name, api.cancelledRequestIDs)
}

/// The same bridges used from the main actor.
@MainActor
@Suite("Legacy class: bridges from the main actor", .timeLimit(.minutes(1)))
struct LegacyClassOnTheMainActorTests {
    @Test func aMainActorViewModelAwaitsTheServiceItOwnsAndCancelsIt() async throws {
        let model = ProfileModel()
        let loading = Task { try await model.load(id: 1) }
        await waitUntil { model.api.pendingRequests.count == 1 }
        model.api.respond(to: model.api.pendingRequests[0].requestID, with: .success(ada))
        try await loading.value
        #expect(model.name == "Ada")

        let cancelled = Task { try await model.load(id: 2) }
        await waitUntil { model.api.pendingRequests.count == 1 }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(model.api.cancelledRequestIDs == [2], "cancelled on the main actor before the error was thrown")
    }

    @Test func everyBridgeOverTheConfinedService() async throws {
        let users = ActorConfined(UserAPI(), to: MainActor.shared)
        let repository = UserRepository(users: users)

        async let user = repository.user(id: 1)
        let recorder = FlowRecorder(repository.userFlow(id: 2))
        async let future = repository.userFuture(id: 3).value
        async let shared = repository.sharedUser(id: 4)
        let ids = await users.pendingRequests(4)
        let userIDs = await users.run { $0.pendingRequests.map(\.userID) }
        for (requestID, userID) in zip(ids, userIDs) {
            await users.respond(to: requestID, with: .success(User(id: userID, name: "user\(userID)")))
        }
        await recorder.waitForCompletion()
        #expect(try await [user, future, shared].map(\.id) == [1, 3, 4])
        #expect(recorder.values.map(\.id) == [2])

        let cancelled = FlowRecorder(repository.userFlow(id: 5))
        let pending = await users.pendingRequests(1)
        cancelled.cancel()
        await users.waitUntilCancelled(pending)
    }
}
