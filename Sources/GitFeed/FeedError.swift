import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Why a GitFeed refresh, store or command failed; its `description` is one line for a user.
///
/// An HTTP error status is not a `FeedError`: a refresh filters it out (the chain keeps 2xx
/// responses only), so one bad answer does not end a stream of refreshes.
///
/// ```swift
/// do { _ = try await client.fetchNewEvents() } catch let error as FeedError { print(error) }
/// ```
public enum FeedError: Error, Equatable, CustomStringConvertible {
    /// A URL that is not an absolute `http` or `https` URL with a host.
    case invalidURL(String)
    /// The request did not get an HTTP response (refused, host not found, timed out…).
    case requestFailed(url: String, reason: String)
    /// The store's file exists but cannot be read or decoded.
    case unreadableStore(path: String, reason: String)
    /// The store's file cannot be written.
    case unwritableStore(path: String, reason: String)
    /// The command line does not say what to do.
    case usage(String)

    /// One line that says what went wrong.
    ///
    /// ```swift
    /// print(FeedError.invalidURL("ftp://example.com"))   // not an http(s) URL: ftp://example.com
    /// ```
    public var description: String {
        switch self {
        case .invalidURL(let text): "not an http(s) URL: \(text)"
        case .requestFailed(let url, let reason): "request to \(url) failed: \(reason)"
        case .unreadableStore(let path, let reason): "cannot read the store \(path): \(reason)"
        case .unwritableStore(let path, let reason): "cannot write the store \(path): \(reason)"
        case .usage(let message): message
        }
    }

    /// `text` as a feed URL, or ``invalidURL(_:)``.
    static func feedURL(_ text: String) throws(FeedError) -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = url.host, !host.isEmpty
        else { throw .invalidURL(text) }
        return url
    }

    /// A transport error of URLSession as ``requestFailed(url:reason:)``.
    static func request(to url: URL, failedWith error: any Error) -> FeedError {
        let reason: String
        switch (error as? URLError)?.code {
        case .cannotConnectToHost?: reason = "could not connect to the server"
        case .cannotFindHost?, .dnsLookupFailed?: reason = "host not found"
        case .timedOut?: reason = "timed out"
        case .notConnectedToInternet?, .networkConnectionLost?: reason = "no network connection"
        case .secureConnectionFailed?, .serverCertificateUntrusted?: reason = "TLS failed"
        case let code?: reason = "URLError \(code.rawValue)"
        case nil: reason = "\(error)"
        }
        return .requestFailed(url: url.absoluteString, reason: reason)
    }
}
