import Dispatch
import AsyncBridge

/// A completion-block API of every common shape. Each call completes on a background queue,
/// or synchronously inside the call when `synchronous` is set.
struct LegacyAPI: Sendable {
    var synchronous = false

    private func deliver(_ work: @escaping @Sendable () -> Void) {
        if synchronous { work() } else { DispatchQueue.global().async(execute: work) }
    }

    /// `(Result<T, E>) -> Void`: fails for negative ids.
    func user(id: Int, completion: @escaping @Sendable (Result<String, TestError>) -> Void) {
        deliver { completion(id < 0 ? .failure(TestError(code: id)) : .success("user\(id)")) }
    }

    /// `(T?, Error?) -> Void`: a value, an error, or (for id 0) neither.
    func data(id: Int, completion: @escaping @Sendable (String?, (any Error)?) -> Void) {
        deliver {
            switch id {
            case ..<0: completion(nil, TestError(code: id))
            case 0: completion(nil, nil)
            default: completion("data\(id)", nil)
            }
        }
    }

    /// `(Error?) -> Void`.
    func save(failing: Bool, completion: @escaping @Sendable ((any Error)?) -> Void) {
        deliver { completion(failing ? TestError(code: 2) : nil) }
    }

    /// `(T) -> Void`.
    func status(completion: @escaping @Sendable (Int) -> Void) {
        deliver { completion(200) }
    }

    /// `() -> Void`.
    func ping(completion: @escaping @Sendable () -> Void) {
        deliver { completion() }
    }
}
