import AsyncBridge
import Foundation
import GitFeed
import Testing

@Suite("GitFeed: a repository's event feed over URLSession, as a Flow and as async/await", .timeLimit(.minutes(1)))
struct FeedClientTests {
    @Test("The first fetch stores the events and the Last-Modified header", arguments: Chain.allCases)
    func firstFetchStoresEventsAndLastModified(chain: Chain) async throws {
        try await withFeedFixture { fixture throws in
            let client = fixture.makeClient()

            let events = try await chain.fetch(client)

            #expect(events == FeedFixture.fixtureEvents)
            #expect(try client.store.load() == FeedSnapshot(events: FeedFixture.fixtureEvents, lastModified: LocalFeedServer.fixtureLastModified))
            #expect(try await fixture.ifModifiedSince(ofRequest: 1) == nil)
            #expect(try await fixture.status(ofRequest: 1) == 200)
        }
    }

    @Test("The second fetch sends If-Modified-Since, gets 304, and keeps what is stored", arguments: Chain.allCases)
    func secondFetchGetsNotModified(chain: Chain) async throws {
        try await withFeedFixture { fixture throws in
            let client = fixture.makeClient()
            _ = try await chain.fetch(client)
            let stored = try client.store.load()

            let events = try await chain.fetch(client)

            #expect(events == [])
            #expect(try await fixture.ifModifiedSince(ofRequest: 2) == LocalFeedServer.fixtureLastModified)
            #expect(try await fixture.status(ofRequest: 2) == 304)
            #expect(try client.store.load() == stored)
            #expect(fixture.server.requestCount == 2)
        }
    }

    @Test("A newer feed comes back whole: new events first, one copy of each, its Last-Modified stored", arguments: Chain.allCases)
    func newerFeedIsMerged(chain: Chain) async throws {
        try await withFeedFixture { fixture throws in
            let client = fixture.makeClient()
            _ = try await chain.fetch(client)
            let newer = FeedEvent(id: "30000000004", type: "ForkEvent", actor: "barbara", repository: "asyncbridge/asyncbridge", createdAt: "2026-11-26T10:00:00Z")
            let newerLastModified = "Thu, 26 Nov 2026 10:00:00 GMT"
            fixture.server.publish(feed: Self.feed(of: [newer] + FeedFixture.fixtureEvents), lastModified: newerLastModified)

            let events = try await chain.fetch(client)

            #expect(events == [newer] + FeedFixture.fixtureEvents)
            #expect(try client.store.load() == FeedSnapshot(events: [newer] + FeedFixture.fixtureEvents, lastModified: newerLastModified))
            #expect(try await fixture.ifModifiedSince(ofRequest: 2) == LocalFeedServer.fixtureLastModified)
        }
    }

    @Test("A server error is filtered out: nothing stored, and the next fetch works", arguments: Chain.allCases)
    func serverErrorIsFilteredOut(chain: Chain) async throws {
        try await withFeedFixture { fixture throws in
            let client = fixture.makeClient()
            fixture.server.enqueue(.status(500))

            #expect(try await chain.fetch(client) == [])
            #expect(try await fixture.status(ofRequest: 1) == 500)
            #expect(try client.store.load() == FeedSnapshot(events: [], lastModified: nil))

            #expect(try await chain.fetch(client) == FeedFixture.fixtureEvents)
            #expect(try await fixture.ifModifiedSince(ofRequest: 2) == nil)
        }
    }

    @Test("A server error does not end the refresh stream: the next refresh's events follow")
    func serverErrorKeepsTheRefreshStream() async throws {
        try await withFeedFixture { fixture throws in
            let client = fixture.makeClient()
            fixture.server.enqueue(.status(500))

            let batches = try await client.refreshes(on: .sequence([(), ()])).collect().firstValue

            #expect(batches == [FeedFixture.fixtureEvents])
            #expect(try await fixture.status(ofRequest: 1) == 500)
            #expect(try await fixture.status(ofRequest: 2) == 200)
            #expect(try client.store.load().events == FeedFixture.fixtureEvents)
        }
    }

    @Test("Malformed JSON is an empty result, not a crash: nothing stored, not even Last-Modified", arguments: Chain.allCases)
    func malformedJSONIsEmpty(chain: Chain) async throws {
        try await withFeedFixture { fixture throws in
            let client = fixture.makeClient()
            fixture.server.enqueue(.malformedJSON)

            #expect(try await chain.fetch(client) == [])
            #expect(try await fixture.status(ofRequest: 1) == 200)
            #expect(try client.store.load() == FeedSnapshot(events: [], lastModified: nil))
        }
    }

    @Test("Cancelling a refresh mid-request cancels the URLSessionTask: the server sees the connection closed", arguments: Chain.allCases)
    func cancellingCancelsTheTask(chain: Chain) async throws {
        try await withFeedFixture { fixture throws in
            let client = fixture.makeClient()
            fixture.server.enqueue(.holdUntilClientCloses)

            switch chain {
            case .flow:
                let token = client.refresh().newEvents.subscribe { event in
                    Issue.record("nothing may arrive from a refresh cancelled before its response: \(event)")
                }
                try await fixture.serverReports(.holding(1))
                token.cancel()
            case .async:
                let fetch = Task { try await client.fetchNewEvents() }
                try await fixture.serverReports(.holding(1))
                fetch.cancel()
                await #expect(throws: CancellationError.self) { try await fetch.value }
            }

            try await fixture.serverReports(.closedByClient(1))
            #expect(try client.store.load() == FeedSnapshot(events: [], lastModified: nil))
        }
    }

    @Test("A late subscriber to the shared response gets it without a second request")
    func lateSubscriberSharesTheResponse() async throws {
        try await withFeedFixture { fixture throws in
            let refresh = fixture.makeClient().refresh()
            #expect(try await refresh.newEvents.collect().firstValue == [FeedFixture.fixtureEvents])

            let response = try await refresh.response.firstValue  // after the response completed

            #expect(response.statusCode == 200)
            #expect(response.lastModified == LocalFeedServer.fixtureLastModified)
            #expect(fixture.server.requestCount == 1)
        }
    }

    @Test("No response is a FeedError that names the URL", arguments: Chain.allCases)
    func refusedConnectionIsAFeedError(chain: Chain) async throws {
        try await LocalFeedServer.withRefusingURL { url in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gitfeed-\(UUID().uuidString).json")
            let client = FeedClient(url: url, store: FeedStore(fileURL: directory))

            await #expect(throws: FeedError.requestFailed(url: url.absoluteString, reason: "could not connect to the server")) {
                try await chain.fetch(client)
            }
        }
    }

    /// `events` in the GitHub events API's JSON, as the server serves them.
    private static func feed(of events: [FeedEvent]) -> Data {
        let objects = events.map { event in
            #"{"id": "\#(event.id)", "type": "\#(event.type)", "actor": {"login": "\#(event.actor)"}, "repo": {"name": "\#(event.repository)"}, "created_at": "\#(event.createdAt ?? "")"}"#
        }
        return Data("[\(objects.joined(separator: ","))]".utf8)
    }
}
