import Foundation
import GitFeed
import Testing

@Suite("GitFeed: the demo's feed command", .timeLimit(.minutes(1)))
struct FeedToolTests {
    /// What a run printed, and its exit code.
    struct Run {
        var status: Int32 = -1
        var output: [String] = []
        var errors: [String] = []
    }

    private func run(_ arguments: [String]) async -> Run {
        var run = Run()
        run.status = await FeedTool.run(arguments: arguments, output: { run.output.append($0) }, errorOutput: { run.errors.append($0) })
        return run
    }

    @Test("Arguments it cannot use are one line on the error output and exit code 1", arguments: [
        (["--url"], "feed: --url needs a value (\(FeedTool.usage))"),
        (["--store", "--url", "http://127.0.0.1/"], "feed: --store needs a value (\(FeedTool.usage))"),
        (["--verbose"], "feed: unknown argument --verbose (\(FeedTool.usage))"),
        (["--url", "ftp://example.com/events"], "feed: not an http(s) URL: ftp://example.com/events"),
        (["--url", "not a url"], "feed: not an http(s) URL: not a url"),
        (["--url", "http:///events"], "feed: not an http(s) URL: http:///events"),
    ])
    func badArguments(arguments: [String], error: String) async {
        let run = await run(arguments)
        #expect(run.status == 1)
        #expect(run.errors == [error])
        #expect(run.output == [])
    }

    @Test("--help prints the usage and succeeds")
    func help() async {
        let run = await run(["--help"])
        #expect(run.status == 0)
        #expect(run.output == [FeedTool.usage])
        #expect(run.errors == [])
    }

    @Test("Without --url it serves the fixture itself: 200 and three events, then 304 keeping them")
    func ownServerTwice() async throws {
        try await withFeedFixture { fixture throws in
            let first = await run(["--store", fixture.storeURL.path])
            #expect(first.status == 0)
            #expect(first.errors == [])
            #expect(first.output.first?.hasPrefix("serving the fixture feed on http://127.0.0.1:") == true)
            #expect(first.output.contains { $0.hasSuffix("(If-Modified-Since: none)") })
            #expect(first.output.contains("HTTP 200: 3 new events; 3 stored in \(fixture.storeURL.path) (Last-Modified: \(LocalFeedServer.fixtureLastModified))"))
            #expect(first.output.suffix(3) == FeedFixture.fixtureEvents.map { "  \($0.createdAt ?? "-")  \($0.actor)  \($0.type)  \($0.repository)" })

            // A new server (another port), the same feed: the stored Last-Modified makes it a 304.
            let second = await run(["--store", fixture.storeURL.path])
            #expect(second.status == 0)
            #expect(second.output.contains { $0.hasSuffix("(If-Modified-Since: \(LocalFeedServer.fixtureLastModified))") })
            #expect(second.output.contains("HTTP 304 Not Modified: 0 new events; 3 stored in \(fixture.storeURL.path) (Last-Modified: \(LocalFeedServer.fixtureLastModified))"))
            let stored = try FeedStore(fileURL: fixture.storeURL).load()
            #expect(stored.events == FeedFixture.fixtureEvents)
        }
    }

    @Test("--url fetches the given feed")
    func givenURL() async throws {
        try await withFeedFixture { fixture throws in
            let run = await run(["--url", fixture.server.url.absoluteString, "--store", fixture.storeURL.path])
            #expect(run.status == 0)
            #expect(run.output.first == "GET \(fixture.server.url) (If-Modified-Since: none)")
            #expect(run.output.contains("HTTP 200: 3 new events; 3 stored in \(fixture.storeURL.path) (Last-Modified: \(LocalFeedServer.fixtureLastModified))"))
            #expect(fixture.server.requestCount == 1)
        }
    }

    @Test("A refused connection is one line and exit code 1")
    func refusedConnection() async throws {
        try await LocalFeedServer.withRefusingURL { url in
            let store = FileManager.default.temporaryDirectory.appendingPathComponent("gitfeed-\(UUID().uuidString).json")
            let run = await run(["--url", url.absoluteString, "--store", store.path])
            #expect(run.status == 1)
            #expect(run.errors == ["feed: request to \(url) failed: could not connect to the server"])
        }
    }

    @Test("An error status is one line and exit code 1; nothing is stored")
    func errorStatus() async throws {
        try await withFeedFixture { fixture throws in
            fixture.server.enqueue(.status(500))
            let run = await run(["--url", fixture.server.url.absoluteString, "--store", fixture.storeURL.path])
            #expect(run.status == 1)
            #expect(run.errors == ["feed: request to \(fixture.server.url) failed: the server answered HTTP 500; nothing stored"])
            #expect(!FileManager.default.fileExists(atPath: fixture.storeURL.path))
        }
    }

    @Test("A store that cannot be written is one line and exit code 1")
    func unwritableStore() async throws {
        try await withFeedFixture { fixture throws in
            // A path under a regular file: not writable, whoever runs the test.
            let file = fixture.directory.appendingPathComponent("a-file")
            try Data().write(to: file)
            let store = file.appendingPathComponent("events.json")
            let run = await run(["--url", fixture.server.url.absoluteString, "--store", store.path])
            #expect(run.status == 1)
            #expect(run.errors == ["feed: cannot write the store \(store.path): \(file.path) is not a folder"])
        }
    }

    @Test("A store path that is a folder is one line that says so, exit code 1, and no request is sent")
    func folderAsStore() async throws {
        try await withFeedFixture { fixture throws in
            let run = await run(["--url", fixture.server.url.absoluteString, "--store", fixture.directory.path])
            #expect(run.status == 1)
            #expect(run.errors == ["feed: cannot read the store \(fixture.directory.path): it is a folder, not a file"])
            #expect(fixture.server.requestCount == 0)
        }
    }

    @Test("A store that is not a GitFeed store is one line and exit code 1, and no request is sent")
    func unreadableStore() async throws {
        try await withFeedFixture { fixture throws in
            try Data("not json".utf8).write(to: fixture.storeURL)
            let run = await run(["--url", fixture.server.url.absoluteString, "--store", fixture.storeURL.path])
            #expect(run.status == 1)
            #expect(run.errors == ["feed: cannot read the store \(fixture.storeURL.path): not a GitFeed store"])
            #expect(fixture.server.requestCount == 0)
        }
    }
}
