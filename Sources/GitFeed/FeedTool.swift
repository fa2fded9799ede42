import AsyncBridge
import Foundation

/// The `feed` command of `asyncbridge-demo`: `feed [--url URL] [--store PATH]` refreshes the feed
/// at `URL` (by default, the fixture feed of a ``LocalFeedServer`` it starts on 127.0.0.1) into
/// the store at `PATH` (by default `.build/asyncbridge-feed.json` under the current directory:
/// inside the package for `swift run`, beside its other build products), then prints what it
/// stored.
///
/// It goes through ``FeedClient/refresh()``, and reads the status from the shared response
/// after the events have come: the replay, not a second request. A failure (a bad URL, no
/// connection, a store that cannot be written, an error status) is one line on `errorOutput`
/// and exit code 1. (A command of the demo; RxSwift and Combine have none.)
///
/// ```swift
/// let status = await FeedTool.run(arguments: ["--store", "/tmp/events.json"], output: { print($0) }, errorOutput: { print($0) })
/// ```
public enum FeedTool {
    /// The command's one-line usage.
    ///
    /// ```swift
    /// print(FeedTool.usage)
    /// ```
    public static let usage = "usage: asyncbridge-demo feed [--url URL] [--store PATH]"

    /// What the command line asks for.
    public struct Options: Sendable, Equatable {
        /// The feed to fetch; `nil` starts a ``LocalFeedServer`` and fetches its fixture feed.
        public var url: URL?
        /// The store's file.
        public var storeURL: URL

        /// The default store: `.build/asyncbridge-feed.json` under the current directory, so
        /// `swift run asyncbridge-demo feed` keeps it inside the package (`.build` is ignored by
        /// git and removed by `swift package clean`); ``run(arguments:output:errorOutput:)``
        /// creates the `.build` folder if it is missing.
        ///
        /// ```swift
        /// let options = FeedTool.Options(url: nil, storeURL: FeedTool.Options.defaultStoreURL)
        /// ```
        public static var defaultStoreURL: URL {
            URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
                .appendingPathComponent(".build")
                .appendingPathComponent("asyncbridge-feed.json")
        }

        /// Creates options.
        ///
        /// ```swift
        /// let options = FeedTool.Options(url: URL(string: "http://127.0.0.1:8080/events"), storeURL: store)
        /// ```
        public init(url: URL?, storeURL: URL) {
            self.url = url
            self.storeURL = storeURL
        }
    }

    /// Reads the arguments after `feed`; `nil` for `--help`.
    ///
    /// ```swift
    /// let options = try FeedTool.parse(["--url", "https://api.github.com/repos/apple/swift/events"])
    /// ```
    ///
    /// - Throws: ``FeedError/usage(_:)`` or ``FeedError/invalidURL(_:)``.
    public static func parse(_ arguments: [String]) throws(FeedError) -> Options? {
        var options = Options(url: nil, storeURL: Options.defaultStoreURL)
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--help", "-h":
                return nil
            case "--url", "--store":
                guard let value = remaining.popFirst(), !value.hasPrefix("--") else {
                    throw .usage("\(argument) needs a value (\(usage))")
                }
                if argument == "--url" {
                    options.url = try FeedError.feedURL(value)
                } else {
                    options.storeURL = URL(fileURLWithPath: value)
                }
            default:
                throw .usage("unknown argument \(argument) (\(usage))")
            }
        }
        return options
    }

    /// Runs the command: parses `arguments` (those after `feed`), refreshes, prints.
    ///
    /// ```swift
    /// exit(await FeedTool.run(arguments: Array(CommandLine.arguments.dropFirst(2)), output: { print($0) }, errorOutput: { print($0) }))
    /// ```
    ///
    /// - Parameters:
    ///   - output: Receives each line of the report.
    ///   - errorOutput: Receives the one line that says why the command failed.
    /// - Returns: `0` on success, `1` on failure.
    public static func run(arguments: [String], output: (String) -> Void, errorOutput: (String) -> Void) async -> Int32 {
        do {
            guard let options = try parse(arguments) else {
                output(usage)
                return 0
            }
            if options.storeURL == Options.defaultStoreURL {
                // The default's folder; a store given with --store must exist already.
                try? FileManager.default.createDirectory(
                    at: options.storeURL.deletingLastPathComponent(), withIntermediateDirectories: true
                )
            }
            var server: LocalFeedServer?
            let url: URL
            if let given = options.url {
                url = given
            } else {
                let local = try LocalFeedServer.start()
                output("serving the fixture feed on \(local.url)")
                server = local
                url = local.url
            }
            let outcome = await Result { try await refresh(url: url, storeURL: options.storeURL, output: output) }
            await server?.stop()
            try outcome.get()
            return 0
        } catch {
            errorOutput("feed: \(error)")  // a FeedError's description is one line
            return 1
        }
    }

    private static func refresh(url: URL, storeURL: URL, output: (String) -> Void) async throws {
        let store = FeedStore(fileURL: storeURL)
        let client = FeedClient(url: url, store: store)
        output("GET \(url) (If-Modified-Since: \(try store.load().lastModified ?? "none"))")

        let refresh = client.refresh()
        var new: [FeedEvent] = []
        for try await events in refresh.newEvents.values { new += events }
        // Subscribed after the response completed: the shared response replays it.
        let response = try await refresh.response.firstValue
        guard (200..<400).contains(response.statusCode) else {
            throw FeedError.requestFailed(url: url.absoluteString, reason: "the server answered HTTP \(response.statusCode); nothing stored")
        }

        let snapshot = try store.load()
        let status = response.statusCode == 304 ? "304 Not Modified" : "\(response.statusCode)"
        output("HTTP \(status): \(new.count) new events; \(snapshot.events.count) stored in \(storeURL.path) (Last-Modified: \(snapshot.lastModified ?? "none"))")
        for event in snapshot.events {
            output("  \(event.createdAt ?? "-")  \(event.actor)  \(event.type)  \(event.repository)")
        }
    }
}
