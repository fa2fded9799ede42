import Foundation
import GitFeed

/// `asyncbridge-demo feed [--url URL] [--store PATH]`: the GitFeed app end to end (see
/// `FeedTool` in the GitFeed target, which holds the parsing and the error handling).
enum FeedCommand {
    /// Runs the command with the arguments after `feed`; returns the exit code.
    static func run(arguments: [String]) async -> Int32 {
        await FeedTool.run(
            arguments: arguments,
            output: { print($0) },
            errorOutput: { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
        )
    }
}
