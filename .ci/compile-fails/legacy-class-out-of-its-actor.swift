// The object an `ActorConfined` keeps on its actor cannot be taken out of it: `run` returns
// only `Sendable` results, so reading the legacy API's counter off its actor later is rejected.
// expected-error: type 'UserAPI' does not conform to the 'Sendable' protocol
import AsyncBridge

final class UserAPI {
    var requestCount = 0
}

func leak(_ users: ActorConfined<UserAPI>) async {
    let api = await users.run { api in api }
    api.requestCount += 1
}
