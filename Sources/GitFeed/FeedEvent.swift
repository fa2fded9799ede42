import Foundation

/// One event of a repository's activity feed, as GitFeed stores and shows it: the app's
/// `Event` model.
///
/// Made from the GitHub events API's JSON (`GET /repos/{owner}/{repo}/events`) by the chain's
/// "map to models" step. RxSwift's GitFeed builds its `Event` from a `[String: Any]`; here the
/// JSON is decoded into a `Sendable` wire type first, since a `Flow`'s values cross threads.
/// (Neither RxSwift nor Combine has a type of this name; it is the app's model.)
///
/// ```swift
/// let events: [FeedEvent] = try FeedStore(fileURL: URL(fileURLWithPath: "events.json")).load().events
/// for event in events { print(event.actor, event.type, event.repository) }
/// ```
public struct FeedEvent: Codable, Sendable, Equatable {
    /// The event's id, unique in the feed; the store keeps one event per id.
    public var id: String
    /// GitHub's event type, such as `PushEvent` or `WatchEvent`.
    public var type: String
    /// The login of the user who caused the event.
    public var actor: String
    /// The repository's full name, `owner/name`.
    public var repository: String
    /// When the event happened, as the server wrote it (ISO 8601), if it did.
    public var createdAt: String?

    /// Creates an event.
    ///
    /// ```swift
    /// let event = FeedEvent(id: "1", type: "PushEvent", actor: "octocat", repository: "apple/swift")
    /// ```
    public init(id: String, type: String, actor: String, repository: String, createdAt: String? = nil) {
        self.id = id
        self.type = type
        self.actor = actor
        self.repository = repository
        self.createdAt = createdAt
    }

    /// The chain's "map to models" step: an event of the API's JSON as the app's model.
    init(_ wire: GitHubEvent) {
        self.init(id: wire.id, type: wire.type, actor: wire.actor.login, repository: wire.repo.name, createdAt: wire.createdAt)
    }
}

/// An event as the GitHub events API sends it (the fields GitFeed reads), decoded by the
/// chain's "decode JSON" step.
struct GitHubEvent: Decodable, Sendable {
    struct Actor: Decodable, Sendable {
        var login: String
    }

    struct Repo: Decodable, Sendable {
        var name: String
    }

    var id: String
    var type: String
    var actor: Actor
    var repo: Repo
    var createdAt: String?

    /// The chain's "decode JSON" step: the events of a response body, or none when the body is
    /// not a JSON array of events (malformed JSON, an error object), as RxSwift's GitFeed
    /// returns `[]` when `JSONSerialization` fails: a bad body is an empty result, not a crash
    /// and not a failure that would end a stream of refreshes.
    static func decodeList(from data: Data) -> [GitHubEvent] {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return (try? decoder.decode([GitHubEvent].self, from: data)) ?? []
    }
}
