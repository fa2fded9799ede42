import AsyncBridge
import Foundation
import GitFeed
import Testing

// A LocalFeedServer on 127.0.0.1 and a store in a fresh directory, per test.
//
// Nothing here sleeps or measures time: a test waits for what the server reports (a request
// read, a response sent, a connection the client closed), for a completion, or for a task.

/// The two ways the feature's chain is written; the tests run each scenario through both.
enum Chain: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case flow
    case async

    var testDescription: String { rawValue }

    /// One refresh: `refresh().newEvents` (its values, joined) or `fetchNewEvents()`.
    func fetch(_ client: FeedClient) async throws -> [FeedEvent] {
        switch self {
        case .flow: try await client.refresh().newEvents.collect().firstValue.flatMap { $0 }
        case .async: try await client.fetchNewEvents()
        }
    }
}

struct FeedFixture: Sendable {
    let server: LocalFeedServer
    let directory: URL

    var storeURL: URL { directory.appendingPathComponent("events.json") }

    /// A client of the server's feed with the fixture's store.
    func makeClient() -> FeedClient {
        FeedClient(url: server.url, store: FeedStore(fileURL: storeURL))
    }

    /// Waits until the server has reported `expected` (at once if it already has).
    func serverReports(_ expected: LocalFeedServer.Report) async throws {
        _ = try await server.reports.first(where: { $0 == expected }).firstValue
    }

    /// The `If-Modified-Since` header of request `number`, once the server has read it.
    func ifModifiedSince(ofRequest number: Int) async throws -> String? {
        try await server.reports.compactMap { report -> String?? in
            guard case .request(number, let header) = report else { return nil }
            return .some(header)
        }.firstValue
    }

    /// The status request `number` was answered with, once it has been.
    func status(ofRequest number: Int) async throws -> Int {
        try await server.reports.compactMap { report -> Int? in
            guard case .responded(number, let status) = report else { return nil }
            return status
        }.firstValue
    }

    /// The fixture feed's events as the store keeps them.
    static let fixtureEvents = [
        FeedEvent(id: "30000000003", type: "PushEvent", actor: "ada", repository: "asyncbridge/asyncbridge", createdAt: "2026-11-25T09:30:00Z"),
        FeedEvent(id: "30000000002", type: "WatchEvent", actor: "grace", repository: "asyncbridge/asyncbridge", createdAt: "2026-11-25T09:12:00Z"),
        FeedEvent(id: "30000000001", type: "IssuesEvent", actor: "linus", repository: "asyncbridge/asyncbridge", createdAt: "2026-11-25T08:47:00Z"),
    ]
}

/// Runs `body` with a fresh server and store directory; always stops the one and removes the other.
func withFeedFixture<R>(_ body: (FeedFixture) async throws -> R) async throws -> R {
    let server = try LocalFeedServer.start()
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gitfeed-tests-\(UUID().uuidString)")
    let fixture = FeedFixture(server: server, directory: directory)
    let outcome: Result<R, any Error>
    do {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        outcome = .success(try await body(fixture))
    } catch {
        outcome = .failure(error)
    }
    await server.stop()
    try? FileManager.default.removeItem(at: directory)
    return try outcome.get()
}
