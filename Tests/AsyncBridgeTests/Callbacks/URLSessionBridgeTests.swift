import AsyncBridge
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Bridges a real callback API, `URLSession.dataTask(with:completionHandler:)`, against a real
// HTTP server on 127.0.0.1 (Tests/AsyncBridgeTests/Fixtures/http_server.py, started per test).
//
// Nothing here sleeps or measures time: every wait is on an event (a line the server prints,
// URLSession's completion handler, the server process exiting). The suite's time limit is
// only a guard against a hang.

@Suite("URLSession bridge", .timeLimit(.minutes(1)))
struct URLSessionBridgeTests {
    // MARK: Success

    @Test("withCompletion, (Data?, Error?) shape, cancellable overload: returns the body")
    func withCompletionOptionalPairShape() async throws {
        try await withFixture { fixture in
            let url = fixture.url("/ok")
            let data: Data = try await withCompletion { completion, onCancel in
                let task = fixture.session.dataTask(with: url) { data, _, error in completion(data, error) }
                task.resume()
                onCancel { task.cancel() }
            }
            #expect(String(decoding: data, as: UTF8.self) == Self.okBody)
        }
    }

    @Test("withCompletion, Result shape through an adapter: returns the body")
    func withCompletionResultShape() async throws {
        try await withFixture { fixture in
            let url = fixture.url("/ok")
            let data = try await withCompletion { completion, onCancel in
                let task = fetch(url, in: fixture.session, completion: completion)
                onCancel { task.cancel() }
            }
            #expect(String(decoding: data, as: UTF8.self) == Self.okBody)
        }
    }

    @Test("SharedFuture.value: lazy, and one request shared by every consumer")
    func futureValueIsLazyAndShared() async throws {
        try await withFixture { fixture in
            let url = fixture.url("/ok")
            let starts = Counter()
            let future = SharedFuture<Data, any Error> { completion, onCancel in
                starts.increment()
                let task = fetch(url, in: fixture.session, completion: completion)
                onCancel { task.cancel() }
            }
            #expect(starts.value == 0, "a SharedFuture must not start before someone asks")

            async let first = future.value
            async let second = future.value
            let (a, b) = try await (first, second)
            let later = try await future.value  // served from memory

            #expect(String(decoding: a, as: UTF8.self) == Self.okBody)
            #expect(a == b)
            #expect(later == a)
            #expect(starts.value == 1)
        }
    }

    @Test("SharedFuture.subscribe hands the body to a completion block")
    func futureSubscribe() async throws {
        try await withFixture { fixture in
            let url = fixture.url("/ok")
            let future = SharedFuture<Data, any Error> { completion, onCancel in
                let task = fetch(url, in: fixture.session, completion: completion)
                onCancel { task.cancel() }
            }
            let delivered = OneShot<Result<Data, any Error>>()
            future.subscribe(deliveringOn: .global()) { delivered.fulfil($0) }
            let data = try await delivered.value.get()
            #expect(String(decoding: data, as: UTF8.self) == Self.okBody)
        }
    }

    // MARK: HTTP error status

    @Test("An HTTP error status arrives as HTTPStatusError", arguments: [404, 500])
    func httpErrorStatus(code: Int) async throws {
        try await withFixture { fixture in
            let url = fixture.url("/status/\(code)")

            let thrown = await #expect(throws: HTTPStatusError.self) {
                try await withCompletion { completion, onCancel in
                    let task = fetch(url, in: fixture.session, completion: completion)
                    onCancel { task.cancel() }
                }
            }
            #expect(thrown?.code == code)

            // Through a SharedFuture, `result` hands the same failure back instead of throwing it.
            let future = SharedFuture<Data, any Error> { completion, onCancel in
                let task = fetch(url, in: fixture.session, completion: completion)
                onCancel { task.cancel() }
            }
            let result = try await future.result
            #expect(throws: HTTPStatusError(code: code)) { try result.get() }
        }
    }

    // MARK: Cancellation

    @Test("Cancelling the task awaiting withCompletion cancels the URLSessionTask")
    func cancelWithCompletion() async throws {
        try await withFixture { fixture in
            let (url, id) = fixture.slowURL()
            let probe = RequestProbe()
            let session = fixture.session
            let waiter = Task {
                try await withCompletion { completion, onCancel in
                    let task = fetch(url, in: session, probe: probe, completion: completion)
                    onCancel { task.cancel() }
                }
            }
            try await fixture.serverSays("slow-started \(id)")  // the request is in flight
            waiter.cancel()

            await #expect(throws: CancellationError.self) { try await waiter.value }
            try await expectCancelled(probe, fixture: fixture, id: id)
        }
    }

    @Test("Cancelling the only task awaiting SharedFuture.value cancels the URLSessionTask")
    func cancelFutureValue() async throws {
        try await withFixture { fixture in
            let (url, id) = fixture.slowURL()
            let probe = RequestProbe()
            let session = fixture.session
            let future = SharedFuture<Data, any Error> { completion, onCancel in
                let task = fetch(url, in: session, probe: probe, completion: completion)
                onCancel { task.cancel() }
            }
            let waiter = Task { try await future.value }
            try await fixture.serverSays("slow-started \(id)")
            waiter.cancel()

            await #expect(throws: CancellationError.self) { try await waiter.value }
            try await expectCancelled(probe, fixture: fixture, id: id)
        }
    }

    @Test("Cancelling a SharedFuture.subscribe token cancels the URLSessionTask")
    func cancelSubscription() async throws {
        try await withFixture { fixture in
            let (url, id) = fixture.slowURL()
            let probe = RequestProbe()
            let session = fixture.session
            let future = SharedFuture<Data, any Error> { completion, onCancel in
                let task = fetch(url, in: session, probe: probe, completion: completion)
                onCancel { task.cancel() }
            }
            let delivered = OneShot<Result<Data, any Error>>()
            let token = future.subscribe { delivered.fulfil($0) }
            try await fixture.serverSays("slow-started \(id)")
            token.cancel()

            await #expect(throws: CancellationError.self) { try await delivered.value.get() }
            try await expectCancelled(probe, fixture: fixture, id: id)
        }
    }

    /// The bridge really cancelled the request: the task is cancelling or done, URLSession
    /// reported `URLError.cancelled` to the completion handler, and the server saw the
    /// connection close.
    private func expectCancelled(_ probe: RequestProbe, fixture: Fixture, id: String) async throws {
        let task = try #require(probe.task)
        #expect([.canceling, .completed].contains(task.state), "state: \(task.state.rawValue)")

        let raw = await probe.rawCompletion.value
        let error = try #require(throws: URLError.self) { try raw.get() }
        #expect(error.code == .cancelled)

        try await fixture.serverSays("slow-disconnected \(id)")
    }
}

// Helpers are nested in the suite so their names cannot collide with other test files.
extension URLSessionBridgeTests {
    // MARK: - The callback API under test

    private static let okBody = "hello from the fixture server"

    /// A non-2xx HTTP status, as the Result-shaped wrapper reports it.
    private struct HTTPStatusError: Error, Equatable {
        let code: Int
    }

    /// A Result-shaped wrapper over `URLSession.dataTask(with:completionHandler:)`: maps
    /// `(Data?, URLResponse?, Error?)` to `Result`, a non-2xx status to ``HTTPStatusError``.
    /// Starts the task and returns it; `probe` sees the task and URLSession's raw outcome.
    @discardableResult
    private func fetch(
        _ url: URL,
        in session: URLSession,
        probe: RequestProbe? = nil,
        completion: @escaping @Sendable (Result<Data, any Error>) -> Void
    ) -> URLSessionDataTask {
        let task = session.dataTask(with: url) { data, response, error in
            let result: Result<Data, any Error>
            if let error {
                result = .failure(error)
            } else if let response = response as? HTTPURLResponse {
                result = (200..<300).contains(response.statusCode)
                    ? .success(data ?? Data())
                    : .failure(HTTPStatusError(code: response.statusCode))
            } else {
                result = .failure(URLError(.badServerResponse))
            }
            probe?.rawCompletion.fulfil(result)
            completion(result)
        }
        probe?.record(task)
        task.resume()
        return task
    }

    /// What the wrapper did with URLSession, seen from outside the bridge.
    private final class RequestProbe: @unchecked Sendable {
        private let lock = NSLock()
        private var _task: URLSessionDataTask?
        /// URLSession's completion, even when the bridge has stopped listening.
        let rawCompletion = OneShot<Result<Data, any Error>>()

        func record(_ task: URLSessionDataTask) {
            lock.withLock { _task = task }
        }

        var task: URLSessionDataTask? {
            lock.withLock { _task }
        }
    }

    // MARK: - Fixture: the Python server and a session

    /// A running fixture server and an ephemeral session talking to it.
    private struct Fixture: Sendable {
        let server: FixtureServer
        let session: URLSession

        func url(_ path: String) -> URL {
            URL(string: "http://127.0.0.1:\(server.port)\(path)")!
        }

        /// A `/slow` URL tagged with a fresh id, so its server lines can be told apart.
        func slowURL() -> (URL, String) {
            let id = UUID().uuidString
            return (url("/slow?id=\(id)"), id)
        }

        /// Waits until the server has printed `line`.
        func serverSays(_ line: String) async throws {
            _ = try await server.output.firstLine { $0 == line }
        }
    }

    /// Runs `body` with a fresh server and session; always stops both.
    private func withFixture<R>(_ body: (Fixture) async throws -> R) async throws -> R {
        let server = try await FixtureServer.start()
        let session = URLSession(configuration: .ephemeral)
        let fixture = Fixture(server: server, session: session)
        do {
            let result = try await body(fixture)
            session.invalidateAndCancel()
            await server.stop()
            return result
        } catch {
            session.invalidateAndCancel()
            await server.stop()
            throw error
        }
    }

    private struct FixtureServerError: Error, CustomStringConvertible {
        let description: String
    }

    /// `python3 Fixtures/http_server.py`, with its standard output read line by line.
    private final class FixtureServer: Sendable {
        let port: Int
        let output: LineLog
        private let process: Process
        private let input: Pipe
        private let exited: OneShot<Void>

        private init(port: Int, output: LineLog, process: Process, input: Pipe, exited: OneShot<Void>) {
            self.port = port
            self.output = output
            self.process = process
            self.input = input
            self.exited = exited
        }

        static let scriptURL = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // Callbacks
            .deletingLastPathComponent()  // AsyncBridgeTests
            .appendingPathComponent("Fixtures/http_server.py")

        /// Launches the server and waits for the port on its first line.
        static func start() async throws -> FixtureServer {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", scriptURL.path]
            // The server exits when this pipe closes, so it cannot outlive the test process.
            let input = Pipe()
            let stdout = Pipe()
            process.standardInput = input
            process.standardOutput = stdout

            let exited = OneShot<Void>()
            process.terminationHandler = { _ in exited.fulfil(()) }
            try process.run()

            // A plain thread blocks on the pipe; end-of-file (the process exited) ends it.
            let output = LineLog()
            let reader = stdout.fileHandleForReading
            Thread {
                while true {
                    let chunk = reader.availableData
                    if chunk.isEmpty { break }
                    output.append(chunk)
                }
                output.close()
            }.start()

            do {
                let first = try await output.firstLine { _ in true }
                guard let port = Int(first) else {
                    throw FixtureServerError(description: "expected a port, the server printed \(first)")
                }
                return FixtureServer(port: port, output: output, process: process, input: input, exited: exited)
            } catch {
                if process.isRunning { process.terminate() }
                await exited.value
                throw error
            }
        }

        /// Terminates the server and waits until the process is gone.
        func stop() async {
            if process.isRunning { process.terminate() }
            try? input.fileHandleForWriting.close()
            await exited.value
        }
    }

    /// The lines a process printed, and waiters for lines still to come.
    private final class LineLog: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        private var partial = Data()
        private var isClosed = false
        private var waiters: [(matches: @Sendable (String) -> Bool, continuation: CheckedContinuation<String, any Error>)] = []

        func append(_ chunk: Data) {
            let ready = lock.withLock { () -> [(CheckedContinuation<String, any Error>, String)] in
                partial.append(chunk)
                var ready: [(CheckedContinuation<String, any Error>, String)] = []
                while let newline = partial.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: partial[..<newline], as: UTF8.self)
                    partial = Data(partial[partial.index(after: newline)...])
                    lines.append(line)
                    waiters.removeAll { waiter in
                        guard waiter.matches(line) else { return false }
                        ready.append((waiter.continuation, line))
                        return true
                    }
                }
                return ready
            }
            for (continuation, line) in ready { continuation.resume(returning: line) }
        }

        /// End of output: whoever still waits never gets a line.
        func close() {
            let waiting = lock.withLock { () -> [CheckedContinuation<String, any Error>] in
                isClosed = true
                defer { waiters = [] }
                return waiters.map(\.continuation)
            }
            for continuation in waiting {
                continuation.resume(throwing: FixtureServerError(description: "the server's output ended"))
            }
        }

        /// The first line, printed so far or later, that `matches`.
        func firstLine(where matches: @escaping @Sendable (String) -> Bool) async throws -> String {
            try await withCheckedThrowingContinuation { continuation in
                let outcome = lock.withLock { () -> Result<String, any Error>? in
                    if let line = lines.first(where: matches) { return .success(line) }
                    if isClosed { return .failure(FixtureServerError(description: "the server's output ended")) }
                    waiters.append((matches, continuation))
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        }
    }

    // MARK: - Small synchronisation helpers

    /// A value set once (later sets are ignored) and awaited any number of times.
    private final class OneShot<Value: Sendable>: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: Value?
        private var waiters: [CheckedContinuation<Value, Never>] = []

        func fulfil(_ value: Value) {
            let waiting = lock.withLock { () -> [CheckedContinuation<Value, Never>] in
                guard stored == nil else { return [] }
                stored = value
                defer { waiters = [] }
                return waiters
            }
            for continuation in waiting { continuation.resume(returning: value) }
        }

        var value: Value {
            get async {
                await withCheckedContinuation { continuation in
                    let ready = lock.withLock { () -> Value? in
                        if let stored { return stored }
                        waiters.append(continuation)
                        return nil
                    }
                    if let ready { continuation.resume(returning: ready) }
                }
            }
        }
    }

    private final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0

        func increment() { lock.withLock { count += 1 } }
        var value: Int { lock.withLock { count } }
    }
}
