// Stand-ins for the types and APIs that the ```swift blocks of README.md and Migration.md use.
//
// `.ci/check-doc-snippets` type-checks every such block, each on its own, together with this
// file and against the AsyncBridge module just built. Nothing here runs: bodies only need to
// type-check. Add a stand-in when a document needs one; keep the names the documents use.

import AsyncBridge
import Dispatch
import Foundation

struct User: Sendable, Equatable {
    var id: Int
    var name: String
    var groupID: Int
}

enum APIError: Error, Sendable, Equatable {
    case notFound
    case offline
}

/// What a cancellable completion-block API hands back.
final class Request: Sendable {
    func cancel() {}
}

/// A networking layer built on completion blocks, one method per common shape.
final class API: Sendable {
    // (Result<T, E>) -> Void
    func getUser(id: Int, completion: @escaping @Sendable (Result<User, APIError>) -> Void) {
        completion(.failure(.notFound))
    }

    func getUsers(groupID: Int, completion: @escaping @Sendable (Result<[User], APIError>) -> Void) {
        completion(.success([]))
    }

    // (Result<T, E>) -> Void, cancellable
    @discardableResult
    func getUserCancellable(id: Int, completion: @escaping @Sendable (Result<User, APIError>) -> Void) -> Request {
        completion(.failure(.offline))
        return Request()
    }

    // (T?, Error?) -> Void: the Objective-C shape
    func fetchAvatar(for user: User, completion: @escaping @Sendable (Data?, (any Error)?) -> Void) {
        completion(nil, APIError.notFound)
    }

    // (Error?) -> Void: nil means success
    func save(_ user: User, completion: @escaping @Sendable ((any Error)?) -> Void) {
        completion(nil)
    }

    // (T) -> Void: cannot fail
    func cachedUserCount(completion: @escaping @Sendable (Int) -> Void) {
        completion(0)
    }

    // () -> Void: the call is the signal
    func logOut(completion: @escaping @Sendable () -> Void) {
        completion()
    }

    // async, with a typed failure
    func user(id: Int) async throws(APIError) -> User {
        throw .notFound
    }

    // async, untyped
    func users(groupID: Int) async throws -> [User] {
        []
    }
}

let api = API()
let user = User(id: 42, name: "Ada", groupID: 7)

func show(_ user: User) {}
func show(_ error: any Error) {}

// Coordination (README "coordination" section)

struct Token: Sendable {
    var value: String
}

extension API {
    func refresh(_ refreshToken: String) async throws -> Token {
        Token(value: refreshToken)
    }
}

/// A platform permission API: a status, and a prompt that answers through a completion block.
enum ContactsPermission {
    enum Status { case authorized, notDetermined, denied, restricted }
    static var status: Status { .notDetermined }
    static func requestAccess(completion: @escaping @Sendable (Bool) -> Void) { completion(true) }
}
