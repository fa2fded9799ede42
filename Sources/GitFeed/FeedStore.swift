import Foundation

/// What a ``FeedStore`` holds: the events, newest first, and the `Last-Modified` header of the
/// response they came with, sent back as `If-Modified-Since` by the next refresh.
///
/// RxSwift's GitFeed keeps these in two files (`events.plist` and the `Last-Modified` string);
/// this one keeps them in one JSON file, written atomically, so they never disagree.
///
/// ```swift
/// let snapshot = try store.load()
/// print(snapshot.events.count, snapshot.lastModified ?? "never fetched")
/// ```
public struct FeedSnapshot: Codable, Sendable, Equatable {
    /// The stored events, newest first.
    public var events: [FeedEvent]
    /// The `Last-Modified` header of the response the newest events came with.
    public var lastModified: String?

    /// Creates a snapshot.
    ///
    /// ```swift
    /// let empty = FeedSnapshot(events: [], lastModified: nil)
    /// ```
    public init(events: [FeedEvent], lastModified: String?) {
        self.events = events
        self.lastModified = lastModified
    }
}

/// The chain's "persist to disk" step: a JSON file holding a ``FeedSnapshot``.
///
/// A missing file reads as an empty snapshot. `save(_:lastModified:)` puts the new events
/// first, keeps one event per id and at most `capacity` events (50 by default, as many as
/// RxSwift's GitFeed keeps), and replaces the file atomically; concurrent saves are serialised.
///
/// ```swift
/// let store = FeedStore(fileURL: URL(fileURLWithPath: "/tmp/events.json"))
/// let client = FeedClient(url: URL(string: "https://api.github.com/repos/apple/swift/events")!, store: store)
/// ```
public final class FeedStore: Sendable {
    /// The file the snapshot is kept in.
    public let fileURL: URL
    /// How many events are kept at most.
    public let capacity: Int
    private let writing = Locked(())

    /// Creates a store for `fileURL`; nothing is read or written until asked.
    ///
    /// ```swift
    /// let store = FeedStore(fileURL: URL(fileURLWithPath: "events.json"), capacity: 100)
    /// ```
    public init(fileURL: URL, capacity: Int = 50) {
        precondition(capacity > 0, "a FeedStore keeps at least one event")
        self.fileURL = fileURL
        self.capacity = capacity
    }

    /// The stored snapshot; empty if the file does not exist yet.
    ///
    /// ```swift
    /// let lastModified = try store.load().lastModified
    /// ```
    ///
    /// - Throws: ``FeedError/unreadableStore(path:reason:)`` if the path is a folder, or the
    ///   file exists but cannot be read or decoded.
    public func load() throws(FeedError) -> FeedSnapshot {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: fileURL.path, isDirectory: &isFolder) else {
            return FeedSnapshot(events: [], lastModified: nil)
        }
        // Foundation's error for reading a folder names no cause ("NSCocoaErrorDomain error 256").
        guard !isFolder.boolValue else { throw .unreadableStore(path: fileURL.path, reason: "it is a folder, not a file") }
        let data: Data
        do {
            data = try Data(contentsOf: fileURL)
        } catch CocoaError.fileReadNoSuchFile {
            return FeedSnapshot(events: [], lastModified: nil)
        } catch {
            throw .unreadableStore(path: fileURL.path, reason: Self.reason(error))
        }
        do {
            return try JSONDecoder().decode(FeedSnapshot.self, from: data)
        } catch {
            throw .unreadableStore(path: fileURL.path, reason: "not a GitFeed store")
        }
    }

    /// Adds `newEvents` before the stored ones (an event already stored is replaced by its new
    /// copy), records `lastModified`, and writes the file.
    ///
    /// ```swift
    /// let snapshot = try store.save([event], lastModified: "Wed, 25 Nov 2026 12:00:00 GMT")
    /// ```
    ///
    /// - Returns: The snapshot now stored.
    /// - Throws: ``FeedError/unreadableStore(path:reason:)`` or
    ///   ``FeedError/unwritableStore(path:reason:)``.
    @discardableResult
    public func save(_ newEvents: [FeedEvent], lastModified: String?) throws(FeedError) -> FeedSnapshot {
        try writing.withLock { _ throws(FeedError) in
            let stored = try load()
            let newIDs = Set(newEvents.map(\.id))
            let events = newEvents + stored.events.filter { !newIDs.contains($0.id) }
            let snapshot = FeedSnapshot(events: Array(events.prefix(capacity)), lastModified: lastModified ?? stored.lastModified)
            do {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                try encoder.encode(snapshot).write(to: fileURL, options: .atomic)
            } catch {
                throw .unwritableStore(path: fileURL.path, reason: writeFailureReason(error))
            }
            return snapshot
        }
    }

    /// Why writing failed, in words: Foundation says "the file doesn't exist" for a folder that
    /// is missing or is a file, so those two are told apart here.
    private func writeFailureReason(_ error: any Error) -> String {
        let folder = fileURL.deletingLastPathComponent().path
        var isFolder: ObjCBool = false
        if !FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) { return "no folder \(folder)" }
        if !isFolder.boolValue { return "\(folder) is not a folder" }
        return Self.reason(error)
    }

    /// The POSIX reason of a Foundation file error where there is one ("No such file or
    /// directory"), which says more on one line than Foundation's sentence about the file.
    private static func reason(_ error: any Error) -> String {
        if let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError,
            underlying.domain == NSPOSIXErrorDomain, let message = strerror(Int32(underlying.code))
        {
            return String(cString: message)
        }
        return (error as NSError).localizedDescription
    }
}
