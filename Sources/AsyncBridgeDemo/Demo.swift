import Foundation

/// `swift run asyncbridge-demo [sub-command]`: every bridge, shown on a view model's scenarios
/// over a simulated completion-block API. With no sub-command, every part runs, `feed` last.
@main
struct Demo {
    /// One group of scenarios: `asyncbridge-demo <name>` runs it alone.
    struct Part {
        let name: String
        let summary: String
        let run: @Sendable () async throws -> Void
    }

    static let parts = [
        Part(name: "callbacks", summary: "completion blocks ⇄ async/await, SharedFuture and Result; cancelling a request; a completion called twice", run: OneShotBridges.run),
        Part(name: "flows", summary: "user → group, flatMap(weak:), an action relay, serialised requests; Flow ⇄ async/await (values, firstValue, Flow(asyncSequence), Flow { async }); BroadcastChannel; receive(on: MainActor.shared); cancelling a Flow and a values loop", run: FlowScenarios.run),
        Part(name: "observing", summary: "an @Observable model (on the main actor, and changed from several threads) and NotificationCenter as flows", run: ObservingScenarios.run),
        Part(name: "time", summary: "withTimeout, withRetry, and the Flow operators debounce, throttle, delay and timeout, on the real clock (milliseconds)", run: TimeScenarios.run),
        Part(name: "coordination", summary: "AuthorizationGate (one permission prompt for many screens), SingleFlight (one token refresh for many requests)", run: CoordinationScenarios.run),
    ]

    static func main() async {
        exit(await run(Array(CommandLine.arguments.dropFirst())))
    }

    /// Runs what `arguments` ask for; returns the exit code.
    static func run(_ arguments: [String]) async -> Int32 {
        guard let command = arguments.first else {
            for part in parts {
                guard await run(part) else { return 1 }
            }
            print("\n# feed: \(feedSummary) (asyncbridge-demo feed)")
            return await FeedCommand.run(arguments: [])
        }
        if command == "feed" {
            return await FeedCommand.run(arguments: Array(arguments.dropFirst()))
        }
        if command == "--help" || command == "-h" || command == "help" {
            printHelp()
            return 0
        }
        guard let part = parts.first(where: { $0.name == command }) else {
            printError("asyncbridge-demo: unknown sub-command \(command) (asyncbridge-demo --help lists them)")
            return 1
        }
        guard arguments.count == 1 else {
            printError("asyncbridge-demo: \(command) takes no arguments, but was given \(arguments.dropFirst().joined(separator: " "))")
            return 1
        }
        return await run(part) ? 0 : 1
    }

    static let feedSummary = "a feed read from a local server started by the demo (offline); arguments after feed are its own"

    /// Runs one part under a heading that names its sub-command; false if it failed.
    static func run(_ part: Part) async -> Bool {
        print("\n# \(part.name): \(part.summary) (asyncbridge-demo \(part.name))")
        do {
            try await part.run()
            return true
        } catch {
            printError("asyncbridge-demo: \(part.name) failed: \(error)")
            return false
        }
    }

    static func printHelp() {
        let width = parts.map(\.name.count).max() ?? 0
        print("usage: asyncbridge-demo [sub-command]\n")
        print("AsyncBridge's bridges, each shown on a simulated completion-block API. Sub-commands:\n")
        for part in parts {
            print("  \(part.name.padding(toLength: width + 2, withPad: " ", startingAt: 0))\(part.summary)")
        }
        print("  \("feed …".padding(toLength: width + 2, withPad: " ", startingAt: 0))\(feedSummary)")
        print("\nWith no sub-command, runs every part in this order, feed last (offline, no arguments).")
    }

    static func printError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

func section(_ title: String) {
    print("\n== \(title)")
}

/// "1, 2, 3": values as a newcomer reads them, without the quotes an array's description adds.
func list<Value>(_ values: [Value]) -> String {
    values.map { "\($0)" }.joined(separator: ", ")
}

/// "once", "2 times".
func times(_ count: Int) -> String {
    count == 1 ? "once" : "\(count) times"
}

/// A one-shot signal from another task or thread: the demo waits for what it prints about
/// instead of sleeping and hoping, so its output keeps its order. One waiter; firing again
/// does nothing.
struct Signal: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream()
    }

    func fire() {
        continuation.finish()
    }

    func wait() async {
        for await _ in stream {}
    }
}
