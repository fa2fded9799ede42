import Dispatch

/// A completion-block `UserManager` (`getUser(withUserID:completion:)`,
/// `getUsers(withGroupID:completion:)`): a networking layer that answers after a simulated
/// latency on a dispatch queue, with a request handle that can be cancelled.
struct User: Sendable, CustomStringConvertible {
    let id: String
    let name: String
    let groupID: String
    var description: String { "\(name) (\(id), group \(groupID))" }
}

enum APIError: Error, CustomStringConvertible {
    case notFound(String)
    case busy
    case cancelled
    var description: String {
        switch self {
        case .notFound(let id): return "not found: \(id)"
        case .busy: return "the server is busy, try again"
        case .cancelled: return "cancelled"
        }
    }
}

/// A request in flight; `cancel()` stops it and its completion is then never called.
/// (`DispatchWorkItem.cancel()` is thread-safe; the work item is not marked `Sendable`.)
final class Request: @unchecked Sendable {
    private let item: DispatchWorkItem
    init(_ item: DispatchWorkItem) { self.item = item }
    func cancel() { item.cancel() }
}

final class UserManager: Sendable {
    static let shared = UserManager()

    private let queue = DispatchQueue(label: "UserManager.network")
    private let users = [
        "u1": User(id: "u1", name: "Ada", groupID: "g1"),
        "u2": User(id: "u2", name: "Grace", groupID: "g1"),
        "u3": User(id: "u3", name: "Linus", groupID: "g2"),
    ]
    private let requests = RequestLog()

    /// How many requests reached the "server" so far.
    var requestCount: Int { requests.count }

    @discardableResult
    func getUser(
        withUserID userID: String,
        latencyMilliseconds: Int = 50,
        completion: @escaping @Sendable (Result<User, APIError>) -> Void
    ) -> Request {
        send(latencyMilliseconds) { [users] in
            completion(users[userID].map { .success($0) } ?? .failure(.notFound(userID)))
        }
    }

    @discardableResult
    func getUsers(
        withGroupID groupID: String,
        completion: @escaping @Sendable (Result<[User], APIError>) -> Void
    ) -> Request {
        send(50) { [users] in
            completion(.success(users.values.filter { $0.groupID == groupID }.sorted { $0.id < $1.id }))
        }
    }

    private func send(_ latencyMilliseconds: Int, _ respond: @escaping @Sendable () -> Void) -> Request {
        requests.increment()
        let item = DispatchWorkItem(block: respond)
        queue.asyncAfter(deadline: .now() + .milliseconds(latencyMilliseconds), execute: item)
        return Request(item)
    }
}

/// A thread-safe request counter (the demo keeps its own state on a serial queue).
final class RequestLog: Sendable {
    private let queue = DispatchQueue(label: "RequestLog")
    nonisolated(unsafe) private var value = 0
    func increment() { queue.sync { value += 1 } }
    var count: Int { queue.sync { value } }
}
