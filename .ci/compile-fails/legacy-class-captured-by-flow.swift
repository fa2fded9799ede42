// A class that is not `Sendable` (a legacy API with a plain request counter) captured by a
// flow's body, which runs on whichever thread subscribes: two subscriptions would bump the
// counter at once, so it must not compile. Confined with `ActorConfined`, the body reaches the
// object only through `start`, on its actor (Coexistence/Sources/LegacyClient).
// expected-error: capture of 'api' with non-Sendable type 'UserAPI' in a '@Sendable' closure
import AsyncBridge

final class UserAPI {
    var requestCount = 0

    func fetchUser(id: Int, completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
        requestCount += 1
        completion(.success("user\(id)"))
    }
}

func user(id: Int, api: UserAPI) -> Flow<String, any Error> {
    Flow { completion in api.fetchUser(id: id, completion: completion) }
}
