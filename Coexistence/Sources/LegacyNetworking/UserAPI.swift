// A completion-handler networking layer written before Swift concurrency: the shape of an app's
// legacy module, compiled in the Swift 5 language mode as such modules are.
//
// `UserAPI` and `RequestHandle` are classes with mutable state and no lock, and not `Sendable`:
// the app uses them from one thread at a time (the main thread, or one task). `UserAPI` counts
// its requests in a plain `var`; touching it from two threads at once is a data race, which is
// what Swift 6 code that bridges this module to `Flow`, `SharedFuture`, `SingleFlight` or
// `async` must not be able to do (LegacyClient and .ci/compile-fails/legacy-class-off-its-actor.swift).
//
// The "network" is in memory so that tests decide when a response comes: a request waits in
// `pendingRequests` until `respond(to:with:)` completes it.

/// A user, as the server returns it.
public struct User: Equatable, Sendable {
    public let id: Int
    public let name: String

    public init(id: Int, name: String) {
        self.id = id
        self.name = name
    }
}

/// Why a request failed.
public enum APIError: Error, Equatable {
    case notFound
    case offline
}

/// A request in flight; `cancel()` drops its completion.
public final class RequestHandle {
    public let requestID: Int
    public private(set) var isCancelled = false
    private let onCancel: () -> Void

    init(requestID: Int, onCancel: @escaping () -> Void) {
        self.requestID = requestID
        self.onCancel = onCancel
    }

    public func cancel() {
        guard !isCancelled else { return }
        isCancelled = true
        onCancel()
    }
}

/// The app's user service.
public final class UserAPI {
    /// Requests started since the service was made. A plain counter: not thread-safe.
    public private(set) var requestCount = 0
    /// Requests cancelled through their handle.
    public private(set) var cancelledRequestIDs: [Int] = []
    private var pending: [Int: (userID: Int, completion: (Result<User, APIError>) -> Void)] = [:]

    public init() {}

    /// Starts loading a user; `completion` is called once, unless the request is cancelled.
    @discardableResult
    public func fetchUser(id: Int, completion: @escaping (Result<User, APIError>) -> Void) -> RequestHandle {
        requestCount += 1
        let requestID = requestCount
        pending[requestID] = (id, completion)
        return RequestHandle(requestID: requestID) { [weak self] in
            guard let self = self else { return }
            self.pending[requestID] = nil
            self.cancelledRequestIDs.append(requestID)
        }
    }

    /// The requests waiting for a response: request id and user id, oldest first.
    public var pendingRequests: [(requestID: Int, userID: Int)] {
        pending.keys.sorted().map { ($0, pending[$0]!.userID) }
    }

    /// Completes a pending request (the server answered); does nothing if it is not pending.
    public func respond(to requestID: Int, with result: Result<User, APIError>) {
        guard let request = pending.removeValue(forKey: requestID) else { return }
        request.completion(result)
    }
}
