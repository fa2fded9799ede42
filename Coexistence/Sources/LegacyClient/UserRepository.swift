// Swift 6 code over LegacyNetworking (Swift 5 mode, nothing `Sendable` but its values), imported
// without `@preconcurrency`: the legacy-class recipe of README.md ("In an app") and Migration.md
// ("A class that is not Sendable"), built with warnings as errors and tested in
// Tests/LegacyClientTests.
import AsyncBridge
import LegacyNetworking

/// The legacy service behind every bridge: `async`, `SharedFuture`, `Flow` and `SingleFlight`.
/// A `Sendable` value, so main-actor view models and nonisolated code share it.
public struct UserRepository: Sendable {
    /// The service, confined to the actor the app uses it on (the main actor, in the tests).
    public let users: ActorConfined<UserAPI>
    let flights = SingleFlight<Int, User, any Error>()

    public init(users: ActorConfined<UserAPI>) {
        self.users = users
    }

    /// `async`: cancelling the awaiting task cancels the request, on the service's actor.
    public func user(id: Int) async throws -> User {
        try await withCompletion { completion, onCancel in
            onCancel(users.start { api in api.fetchUser(id: id, completion: completion).cancel })
        }
    }

    /// One request per subscription; cancelling a subscription cancels its request.
    public func userFlow(id: Int) -> Flow<User, APIError> {
        Flow { completion, onCancel in
            onCancel(users.start { api in api.fetchUser(id: id, completion: completion).cancel })
        }
    }

    /// One request for all consumers, started by the first; cancelled when the last leaves.
    public func userFuture(id: Int) -> SharedFuture<User, APIError> {
        SharedFuture { completion, onCancel in
            onCancel(users.start { api in api.fetchUser(id: id, completion: completion).cancel })
        }
    }

    /// Concurrent callers of one id share one request.
    public func sharedUser(id: Int) async throws -> User {
        try await flights.run(key: id) {
            try await withCompletion { completion, onCancel in
                onCancel(users.start { api in api.fetchUser(id: id, completion: completion).cancel })
            }
        }
    }
}

/// A view model that owns the service itself, on the main actor: `withCompletion` needs no box,
/// since its body and cancel action run on the caller's actor.
@MainActor
public final class ProfileModel {
    public let api = UserAPI()
    public private(set) var name = ""

    public init() {}

    public func load(id: Int) async throws {
        let user = try await withCompletion { completion, onCancel in
            let request = api.fetchUser(id: id, completion: completion)
            onCancel(request.cancel)
        }
        name = user.name
    }
}

/// Nonisolated async code that owns a service of its own (in its task): the same.
public func loadName(id: Int, with api: UserAPI) async throws -> String {
    try await withCompletion { completion, onCancel in
        let request = api.fetchUser(id: id, completion: completion)
        onCancel(request.cancel)
    }.name
}
