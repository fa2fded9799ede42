// A completion-block body that does not say which shape its block has (it only stores the
// block) fits both `(Result<Data, any Error>) -> Void` and `(Data?, (any Error)?) -> Void`.
// The call is ambiguous; name the block's type. Before, the `Result` shape was picked silently.
// expected-error: ambiguous use of 'init\(fileID:line:_:\)'
import AsyncBridge
import Foundation

final class Pending: @unchecked Sendable {
    var block: Any?
}

func load(into pending: Pending) -> SharedFuture<Data, any Error> {
    SharedFuture { completion in
        pending.block = completion
    }
}
