import AsyncBridge
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An HTTP response as the feed chain passes it on: the `(HTTPURLResponse, Data)` of RxCocoa's
/// `URLSession.rx.response(request:)`.
///
/// ```swift
/// let response = try await client.refresh().response.firstValue
/// print(response.statusCode, response.lastModified ?? "-")
/// ```
public struct FeedResponse: Sendable, Equatable {
    /// The HTTP status code (`304` when nothing changed since `If-Modified-Since`).
    public var statusCode: Int
    /// The `Last-Modified` header, if the server sent one.
    public var lastModified: String?
    /// The body (empty for a `304`).
    public var body: Data

    /// Creates a response.
    ///
    /// ```swift
    /// let notModified = FeedResponse(statusCode: 304, lastModified: nil, body: Data())
    /// ```
    public init(statusCode: Int, lastModified: String?, body: Data) {
        self.statusCode = statusCode
        self.lastModified = lastModified
        self.body = body
    }
}

/// One refresh of the feed, as RxSwift's GitFeed writes it: a shared response, and the new
/// events made from it.
///
/// Nothing is sent until something subscribes to `response` or `newEvents`; then one request
/// goes out, which every subscriber of either shares.
///
/// ```swift
/// let refresh = client.refresh()
/// for try await events in refresh.newEvents.values { print("stored", events.count, "new events") }
/// let status = try await refresh.response.firstValue.statusCode   // no second request
/// ```
public struct FeedRefresh: Sendable {
    /// The request's response: `map` (the request, with `If-Modified-Since`) → `flatMap`
    /// (wait for `URLSession`) → `share(replay: 1, scope: .forever)`.
    ///
    /// RxSwift's GitFeed, written for RxSwift 3, shares the response with `shareReplay(1)`,
    /// which takes the `.forever` scope. RxSwift implements the deprecated `shareReplay(n)` as
    /// `share(replay: n, scope: .forever)`, and its deprecation message says: "In case old 3.x
    /// behavior of `shareReplay` is required please use `share(replay: 1, scope: .forever)`
    /// instead." `.forever` is also what sharing the response is for: the response completes,
    /// and a subscriber that comes after that must get the stored response, not start an
    /// identical request. With `.whileConnected` (the default here and in RxSwift, which the
    /// message's "suggested replacement" `share(replay: 1)` takes) a subscriber after the
    /// completion reconnects and sends the request again. Combine's `share()` does not replay:
    /// a late subscriber gets only the completion.
    ///
    /// ```swift
    /// let lastModified = try await client.refresh().response.firstValue.lastModified
    /// ```
    public let response: Flow<FeedResponse, any Error>

    /// The events the response brought, once stored: `response` → keep 2xx (`filter`) →
    /// decode the JSON (`map`; a body that is not a list of events decodes as none) → drop
    /// empty results (`filter`) → map to ``FeedEvent`` models (`map`) → persist them with the
    /// response's `Last-Modified` (`tryMap`).
    ///
    /// So it emits one value, the new events, or none (a `304`, an error status, malformed or
    /// empty JSON), then finishes. The steps after the share run per subscriber: two
    /// subscribers share one request, and each stores the events (the second save changes
    /// nothing, the store keeping one event per id). It fails only when no response came (a ``FeedError``
    /// `.requestFailed`, or the store could not be read or written).
    ///
    /// RxSwift and Combine: the same chain of `filter` and `map` on the shared response.
    ///
    /// ```swift
    /// let token = client.refresh().newEvents.subscribe(onValue: { print($0) }, onCompletion: { print($0) })
    /// ```
    public let newEvents: Flow<[FeedEvent], any Error>
}

/// GitFeed's client: fetches a repository's events over `URLSession`'s completion-block API,
/// bridged by AsyncBridge, and keeps them on disk; each refresh sends the stored `Last-Modified`
/// as `If-Modified-Since`, so a feed that has not changed answers `304 Not Modified` and
/// nothing is downloaded or stored again.
///
/// The chain is written twice: as a `Flow` (``refresh()``, ``refreshes(on:)``), the shape
/// RxSwift's GitFeed has, and as async/await (``fetchNewEvents()``); both send the same request
/// and keep and store the same events. Cancelling either (the subscription, or the awaiting task)
/// cancels the `URLSessionTask`. (RxSwift's GitFeed does this in its `ActivityController`
/// with `URLSession.rx.response`; with Combine it would be `dataTaskPublisher`.)
///
/// ```swift
/// let store = FeedStore(fileURL: URL(fileURLWithPath: "/tmp/swift-events.json"))
/// let client = FeedClient(url: URL(string: "https://api.github.com/repos/apple/swift/events")!, store: store)
/// let new = try await client.fetchNewEvents()   // [] when nothing changed (304)
/// ```
public final class FeedClient: Sendable {
    /// The feed's URL.
    public let url: URL
    /// Where the events and the `Last-Modified` header are kept.
    public let store: FeedStore
    private let session: URLSession
    private let ownsSession: Bool

    /// Creates a client for the feed at `url`, storing into `store`.
    ///
    /// ```swift
    /// let client = FeedClient(url: URL(string: "http://127.0.0.1:8080/events")!, store: store)
    /// ```
    ///
    /// - Parameter session: The session to use. By default the client makes an ephemeral one
    ///   without a cache (invalidated when the client goes away), so the only conditional
    ///   header a request carries is the `If-Modified-Since` the client adds.
    public init(url: URL, store: FeedStore, session: URLSession? = nil) {
        self.url = url
        self.store = store
        if let session {
            self.session = session
            ownsSession = false
        } else {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.urlCache = nil
            configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
            self.session = URLSession(configuration: configuration)
            ownsSession = true
        }
    }

    deinit {
        if ownsSession { session.finishTasksAndInvalidate() }
    }

    /// One refresh, as a `Flow`: the chain of ``FeedRefresh``. Each call makes a new
    /// shared request; nothing is sent until it is subscribed to.
    ///
    /// RxSwift: `Observable.from([repo]).map(…).flatMap { URLSession.shared.rx.response(request: $0) }.shareReplay(1)`;
    /// Combine: `Just(url).map(…).flatMap { session.dataTaskPublisher(for: $0) }.share()`.
    ///
    /// ```swift
    /// let events = try await client.refresh().newEvents.collect().firstValue.joined()
    /// ```
    public func refresh() -> FeedRefresh {
        let response = Flow<URL, any Error>.just(url)
            .tryMap { url throws(any Error) in try self.request(for: url) }
            .flatMap { request in Flow { completion, onCancel in onCancel(self.send(request, completion: completion)) } }
            .share(replay: 1, scope: .forever)
        let newEvents = response
            .filter { (200..<300).contains($0.statusCode) }
            .map { (events: GitHubEvent.decodeList(from: $0.body), lastModified: $0.lastModified) }
            .filter { !$0.events.isEmpty }
            .map { (events: $0.events.map(FeedEvent.init), lastModified: $0.lastModified) }
            .tryMap { new throws(any Error) in
                try self.store.save(new.events, lastModified: new.lastModified)
                return new.events
            }
        return FeedRefresh(response: response, newEvents: newEvents)
    }

    /// A refresh per value of `triggers` (a pull-to-refresh, a timer), one at a time: the new
    /// events of each, in order. A refresh that brings nothing (a `304`, an error status,
    /// malformed JSON) emits nothing and the stream goes on; it fails only when a request gets
    /// no response or the store fails.
    ///
    /// Refreshes queue rather than overlap (`concatMap`), since each sends the
    /// `Last-Modified` that the previous one stored. RxSwift: `triggers.concatMap { _ in … }`;
    /// Combine: `triggers.flatMap(maxPublishers: .max(1)) { _ in … }`.
    ///
    /// ```swift
    /// let pulls = LiveRelay<Void>()
    /// let token = client.refreshes(on: pulls.flow).subscribe(onValue: { print($0.count, "new") }, onCompletion: { _ in })
    /// pulls.accept(())
    /// ```
    public func refreshes(on triggers: Flow<Void, Never>) -> Flow<[FeedEvent], any Error> {
        triggers.setFailureType(to: (any Error).self).concatMap { _ in self.refresh().newEvents }
    }

    /// One refresh, as async/await: the same steps as ``refresh()``. Returns the new events,
    /// stored, or `[]` when the response brought none (a `304`, an error status, malformed
    /// or empty JSON).
    ///
    /// Cancelling the awaiting task cancels the `URLSessionTask` and throws
    /// `CancellationError`. Otherwise it throws a ``FeedError`` (no response, or the store
    /// failed).
    ///
    /// RxSwift 6: the same chain as a `Single`, awaited with `try await single.value`;
    /// Combine: the chain on `dataTaskPublisher(for:)`, awaited with `for try await … in publisher.values`.
    ///
    /// ```swift
    /// let new = try await client.fetchNewEvents()
    /// ```
    public func fetchNewEvents() async throws -> [FeedEvent] {
        let request = try request(for: url)
        let response = try await withCompletion { completion, onCancel in
            onCancel(send(request, completion: completion))
        }
        guard (200..<300).contains(response.statusCode) else { return [] }
        let decoded = GitHubEvent.decodeList(from: response.body)
        guard !decoded.isEmpty else { return [] }
        let events = decoded.map(FeedEvent.init)
        try store.save(events, lastModified: response.lastModified)
        return events
    }

    /// The chain's `map` step: a GET of `url` carrying the stored `Last-Modified` as
    /// `If-Modified-Since`.
    private func request(for url: URL) throws(FeedError) -> URLRequest {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData)
        request.setValue("application/vnd.github+json", forHTTPHeaderField: "Accept")
        request.setValue("AsyncBridge-GitFeed", forHTTPHeaderField: "User-Agent")
        if let lastModified = try store.load().lastModified {
            request.setValue(lastModified, forHTTPHeaderField: "If-Modified-Since")
        }
        return request
    }

    /// The completion-block call both chains bridge: starts a data task for `request` and hands
    /// back its cancel action.
    private func send(
        _ request: URLRequest,
        completion: @escaping @Sendable (Result<FeedResponse, any Error>) -> Void
    ) -> CancelAction {
        let url = request.url ?? self.url
        let task = session.dataTask(with: request) { data, response, error in
            if let error {
                completion(.failure(FeedError.request(to: url, failedWith: error)))
            } else if let response = response as? HTTPURLResponse {
                let lastModified = response.value(forHTTPHeaderField: "Last-Modified")
                completion(.success(FeedResponse(statusCode: response.statusCode, lastModified: lastModified, body: data ?? Data())))
            } else {
                completion(.failure(FeedError.requestFailed(url: url.absoluteString, reason: "not an HTTP response")))
            }
        }
        task.resume()
        return { task.cancel() }
    }
}
