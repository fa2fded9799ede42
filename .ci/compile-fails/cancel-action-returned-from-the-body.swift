// A completion-block body that returns its cancel action is no longer a form of its own (the
// body's last statement chose the overload); the cancellable form takes a second parameter,
// `onCancel`, and says so at the call site. Compiled before.
// expected-error: function produces expected type 'Void'
import AsyncBridge

final class Request: Sendable { func cancel() {} }
func getUser(completion: @escaping @Sendable (Result<Int, any Error>) -> Void) -> Request { Request() }

func user() async throws -> Int {
    try await withCompletion { completion in
        let request = getUser(completion: completion)
        return { request.cancel() }
    }
}
