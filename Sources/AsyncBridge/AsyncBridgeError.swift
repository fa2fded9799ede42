/// Errors that AsyncBridge itself raises when a bridged API breaks its contract.
///
/// They arrive through the untyped `throws` of ``Future/value`` and ``Future/result``, so a
/// typed `Failure` (even `Never`) never has to make room for them.
///
/// ```swift
/// do {
///     let user = try await withCompletion { api.getUser(id: 1, completion: $0) }
/// } catch AsyncBridgeError.completionNeverCalled {
///     // the API dropped its completion block
/// }
/// ```
public enum AsyncBridgeError: Error, Sendable, Hashable {
    /// The completion block was released without being called, so no result will ever come.
    case completionNeverCalled
    /// A `(T?, Error?) -> Void` completion block was called with both arguments `nil`.
    case missingValueAndError
}
