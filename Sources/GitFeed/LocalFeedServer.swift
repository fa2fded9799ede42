import AsyncBridge
import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small HTTP server on 127.0.0.1, in this process, that serves a feed of GitHub-style
/// events the way GitHub's events API does: with a `Last-Modified` header, and `304 Not
/// Modified` to a request whose `If-Modified-Since` matches it.
///
/// It lets the demo run offline and the tests run against a real socket. Every request is
/// answered on a connection of its own (`Connection: close`), so a connection the client
/// closes is one request it gave up. What the server sees goes to ``reports`` (replayed to
/// late subscribers), so a test waits for an event instead of sleeping. The next requests' answers
/// can be scripted with ``enqueue(_:)``: an error status, malformed JSON, or no answer until the
/// client closes the connection. Call ``stop()`` when done.
/// (A test fixture; RxSwift and Combine have none.)
///
/// ```swift
/// let server = try LocalFeedServer.start()
/// let client = FeedClient(url: server.url, store: store)
/// _ = try await client.fetchNewEvents()
/// await server.stop()
/// ```
public final class LocalFeedServer: Sendable {
    /// How the server answers a request.
    public enum Reply: Sendable, Equatable {
        /// The feed: `200` with its JSON and `Last-Modified`, or `304` (no body) when the
        /// request's `If-Modified-Since` equals the feed's `Last-Modified`. What unscripted
        /// requests get.
        case feed
        /// This status, with the feed's JSON as its body (but no `Last-Modified`): only the
        /// status tells it from the feed, as with an error page a proxy serves from a cache.
        case status(Int)
        /// `200`, `application/json`, `Last-Modified`, and a body that is not JSON.
        case malformedJSON
        /// No answer: the request is held until the client closes the connection
        /// (reported as ``Report/closedByClient(_:)``) or the server stops.
        case holdUntilClientCloses
    }

    /// What the server saw and did; each request is numbered from 1 in the order the
    /// connections were accepted.
    public enum Report: Sendable, Equatable {
        /// Request `number` was read, with this `If-Modified-Since` header (or none).
        case request(_ number: Int, ifModifiedSince: String?)
        /// Request `number` was answered with `status`.
        case responded(_ number: Int, status: Int)
        /// Request `number` is being held (``Reply/holdUntilClientCloses``).
        case holding(_ number: Int)
        /// The client closed the connection of held request `number`.
        case closedByClient(_ number: Int)
    }

    /// The port the server listens on, chosen by the system.
    public let port: Int

    /// The feed's URL: `http://127.0.0.1:<port>/events` (any path serves the feed).
    ///
    /// ```swift
    /// print("serving", server.url)
    /// ```
    public var url: URL { Self.url(port: port) }

    /// Everything the server reports, in order, replayed from the start to each subscriber;
    /// it never finishes.
    ///
    /// ```swift
    /// _ = try await server.reports.first(where: { $0 == .closedByClient(1) }).firstValue
    /// ```
    public var reports: Flow<Report, Never> { reportSubject.flow }

    /// How many requests the server has read so far.
    ///
    /// ```swift
    /// #expect(server.requestCount == 1)
    /// ```
    public var requestCount: Int { state.withLock { $0.requestCount } }

    private struct State {
        var feed: Data
        var lastModified: String
        var replies: [Reply] = []
        var requestCount = 0
        var stopped = false
    }

    private let listener: Int32
    /// Written once by `stop()`; never read, so it stays readable and wakes every `poll`.
    private let wake: (read: Int32, write: Int32)
    private let state: Locked<State>
    private let threads = DispatchGroup()
    private let reportSubject = ReplayingSubject<Report, Never>(bufferSize: .max)

    private init(listener: Int32, port: Int, wake: (read: Int32, write: Int32), feed: Data, lastModified: String) {
        self.listener = listener
        self.port = port
        self.wake = wake
        state = Locked(State(feed: feed, lastModified: lastModified))
    }

    deinit {
        // Every thread has ended (each holds the server), so nothing polls these any more.
        close(wake.read)
        close(wake.write)
    }

    /// Starts a server on 127.0.0.1 on a free port, serving `feed` (a JSON array of events) with
    /// `lastModified`.
    ///
    /// ```swift
    /// let server = try LocalFeedServer.start()   // the fixture feed
    /// ```
    ///
    /// - Throws: ``FeedError/requestFailed(url:reason:)`` if no socket could be set up.
    public static func start(
        feed: Data = LocalFeedServer.fixtureFeed,
        lastModified: String = LocalFeedServer.fixtureLastModified
    ) throws(FeedError) -> LocalFeedServer {
        let (listener, port) = try openSocket(listening: true)
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else {
            close(listener)
            throw failure("pipe")
        }
        let server = LocalFeedServer(
            listener: listener, port: port, wake: (pipeEnds[0], pipeEnds[1]), feed: feed, lastModified: lastModified)
        server.threads.enter()
        Thread { server.acceptConnections() }.start()
        return server
    }

    /// Answers the next requests, in order, as `replies` say; requests after them get the feed.
    ///
    /// ```swift
    /// server.enqueue(.status(500), .malformedJSON)
    /// ```
    public func enqueue(_ replies: Reply...) {
        state.withLock { $0.replies += replies }
    }

    /// Serves `feed` with `lastModified` from now on.
    ///
    /// ```swift
    /// server.publish(feed: newerFeed, lastModified: "Thu, 26 Nov 2026 09:00:00 GMT")
    /// ```
    public func publish(feed: Data, lastModified: String) {
        state.withLock {
            $0.feed = feed
            $0.lastModified = lastModified
        }
    }

    /// Stops listening, drops held requests, and returns when every thread of the server has
    /// ended. Calling it again waits the same way.
    ///
    /// ```swift
    /// await server.stop()
    /// ```
    public func stop() async {
        let first = state.withLock { state in
            defer { state.stopped = true }
            return !state.stopped
        }
        if first {
            var byte: UInt8 = 1
            _ = write(wake.write, &byte, 1)
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            threads.notify(queue: .global()) { continuation.resume() }
        }
    }

    // MARK: - Connections

    private func acceptConnections() {
        var number = 0
        while waitUntilReadable(listener) {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                if [EINTR, ECONNABORTED, EAGAIN].contains(errno) { continue }
                break
            }
            number += 1
            let request = number
            threads.enter()
            Thread {
                self.serve(connection, number: request)
                close(connection)
                self.threads.leave()
            }.start()
        }
        close(listener)
        threads.leave()
    }

    private func serve(_ connection: Int32, number: Int) {
        #if canImport(Darwin)
        var on: Int32 = 1
        setsockopt(connection, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
        guard let head = readHead(connection) else { return }
        let ifModifiedSince = Self.header("If-Modified-Since", in: head)
        let (reply, feed, lastModified) = state.withLock { state in
            state.requestCount += 1
            return (state.replies.isEmpty ? Reply.feed : state.replies.removeFirst(), state.feed, state.lastModified)
        }
        reportSubject.send(.request(number, ifModifiedSince: ifModifiedSince))

        let status: Int
        switch reply {
        case .feed where ifModifiedSince == lastModified:
            status = 304
            respond(connection, status: status, headers: ["Last-Modified": lastModified])
        case .feed:
            status = 200
            respond(connection, status: status, headers: ["Content-Type": "application/json", "Last-Modified": lastModified], body: feed)
        case .malformedJSON:
            status = 200
            respond(connection, status: status, headers: ["Content-Type": "application/json", "Last-Modified": lastModified], body: Data(#"[{"id": "1", "type": "#.utf8))
        case .status(let code):
            status = code
            respond(connection, status: code, headers: ["Content-Type": "application/json"], body: feed)
        case .holdUntilClientCloses:
            reportSubject.send(.holding(number))
            if waitForClientToClose(connection) { reportSubject.send(.closedByClient(number)) }
            return
        }
        reportSubject.send(.responded(number, status: status))
    }

    /// The request line and headers, or `nil` if the client closed first or the server stopped.
    private func readHead(_ connection: Int32) -> String? {
        var received = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        let end: [UInt8] = Array("\r\n\r\n".utf8)
        while received.count < 65_536 {
            guard waitUntilReadable(connection) else { return nil }
            let count = recv(connection, &chunk, chunk.count, 0)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return nil }
            received += chunk[..<count]
            if let range = received.firstRange(of: end) {
                return String(decoding: received[..<range.lowerBound], as: UTF8.self)
            }
        }
        return nil
    }

    /// `true` when the client has closed the connection; `false` if the server stopped first.
    private func waitForClientToClose(_ connection: Int32) -> Bool {
        var byte: UInt8 = 0
        while waitUntilReadable(connection) {
            let count = recv(connection, &byte, 1, 0)
            if count == 0 { return true }
            if count < 0, errno != EINTR, errno != EAGAIN { return true }  // reset by the client
        }
        return false
    }

    /// Waits until `descriptor` is readable (or closed by the peer): `false` once the server
    /// is stopping.
    private func waitUntilReadable(_ descriptor: Int32) -> Bool {
        var descriptors = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
        while true {
            if poll(&descriptors, 2, -1) >= 0 { break }
            if errno != EINTR { return false }
        }
        return descriptors[1].revents == 0
    }

    private func respond(_ connection: Int32, status: Int, headers: [String: String], body: Data = Data()) {
        var head = "HTTP/1.1 \(status) \(Self.reasonPhrase(status))\r\nConnection: close\r\n"
        if status != 304 { head += "Content-Length: \(body.count)\r\n" }
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        let bytes = [UInt8]((head + "\r\n").utf8) + [UInt8](body)
        var sent = 0
        while sent < bytes.count {
            #if canImport(Glibc)
            let flags = Int32(MSG_NOSIGNAL)
            #else
            let flags: Int32 = 0
            #endif
            let count = bytes[sent...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, flags) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            sent += count
        }
        shutdown(connection, Int32(SHUT_WR))
    }

    private static func header(_ name: String, in head: String) -> String? {
        for line in head.split(separator: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            if line[..<colon].trimmingCharacters(in: .whitespaces).lowercased() == name.lowercased() {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    private static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 304: "Not Modified"
        case 404: "Not Found"
        case 500: "Internal Server Error"
        default: "Status"
        }
    }

    // MARK: - The listening socket

    private static func url(port: Int) -> URL {
        URL(string: "http://127.0.0.1:\(port)/events")!
    }

    /// A TCP socket bound to 127.0.0.1 on a port the system chooses, listening or not, and the port.
    private static func openSocket(listening: Bool) throws(FeedError) -> (Int32, Int) {
        #if canImport(Glibc)
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let listener = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard listener >= 0 else { throw failure("socket") }
        var address = sockaddr_in()
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(listener, address, length) == 0 && (!listening || listen(listener, 64) == 0)
                    && getsockname(listener, address, &length) == 0
            }
        }
        guard bound else {
            let error = failure("bind")
            close(listener)
            throw error
        }
        return (listener, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// Runs `body` with a URL on 127.0.0.1 that refuses every connection: its port stays bound
    /// while `body` runs, so no server started meanwhile can take it, but nothing listens on it.
    /// (The port of a stopped server would not do: the system may give it to the next server.)
    /// (A test fixture; RxSwift and Combine have none.)
    ///
    /// ```swift
    /// try await LocalFeedServer.withRefusingURL { url in
    ///     _ = try await FeedClient(url: url, store: store).fetchNewEvents()   // throws requestFailed
    /// }
    /// ```
    ///
    /// - Throws: ``FeedError/requestFailed(url:reason:)`` if no socket could be set up, or what
    ///   `body` throws.
    public static func withRefusingURL<Result>(_ body: (URL) async throws -> Result) async throws -> Result {
        let (socket, port) = try openSocket(listening: false)
        defer { close(socket) }
        return try await body(url(port: port))
    }

    private static func failure(_ call: String) -> FeedError {
        .requestFailed(url: "http://127.0.0.1", reason: "the local server could not start: \(call): \(String(cString: strerror(errno)))")
    }
}

extension LocalFeedServer {
    /// The `Last-Modified` of ``fixtureFeed``.
    ///
    /// ```swift
    /// #expect(try store.load().lastModified == LocalFeedServer.fixtureLastModified)
    /// ```
    public static let fixtureLastModified = "Wed, 25 Nov 2026 09:30:00 GMT"

    /// Three events in the GitHub events API's JSON, newest first: what the server serves by
    /// default.
    ///
    /// ```swift
    /// let server = try LocalFeedServer.start(feed: LocalFeedServer.fixtureFeed)
    /// ```
    public static let fixtureFeed = Data(
        #"""
        [
          {"id": "30000000003", "type": "PushEvent", "actor": {"id": 1, "login": "ada", "avatar_url": "https://avatars.example/ada"},
           "repo": {"id": 7, "name": "asyncbridge/asyncbridge"}, "payload": {"size": 2}, "public": true, "created_at": "2026-11-25T09:30:00Z"},
          {"id": "30000000002", "type": "WatchEvent", "actor": {"id": 2, "login": "grace", "avatar_url": "https://avatars.example/grace"},
           "repo": {"id": 7, "name": "asyncbridge/asyncbridge"}, "payload": {"action": "started"}, "public": true, "created_at": "2026-11-25T09:12:00Z"},
          {"id": "30000000001", "type": "IssuesEvent", "actor": {"id": 3, "login": "linus", "avatar_url": "https://avatars.example/linus"},
           "repo": {"id": 7, "name": "asyncbridge/asyncbridge"}, "payload": {"action": "opened"}, "public": true, "created_at": "2026-11-25T08:47:00Z"}
        ]
        """#.utf8)
}
