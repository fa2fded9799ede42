/// `asyncbridge-demo feed …`: a placeholder, replaced by the feed example at merge.
enum FeedCommand {
    /// Runs the feed example with `arguments` (everything after `feed`); returns the exit code.
    static func run(arguments: [String]) async -> Int32 {
        print("feed: not built yet")
        return 1
    }
}
