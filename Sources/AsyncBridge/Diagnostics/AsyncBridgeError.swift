/// Errors that AsyncBridge itself raises: a bridged API broke its contract, or a flow did not
/// have the number of values an `await` asked for.
///
/// They arrive through the untyped `throws` of ``SharedFuture/value``, ``SharedFuture/result`` and
/// ``Flow/firstValue``-style accessors, never through a typed `Failure`.
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
    /// A flow finished without the value that ``Flow/firstValue``, ``Flow/lastValue`` or
    /// ``Flow/singleValue`` waited for. RxSwift: `RxError.noElements`.
    ///
    /// ```swift
    /// let latest = try? await updates.lastValue   // nil if it threw noValue (or failed)
    /// ```
    case noValue
    /// A flow sent a second value to ``Flow/singleValue``. RxSwift: `RxError.moreThanOneElement`.
    ///
    /// ```swift
    /// do { _ = try await users.singleValue } catch AsyncBridgeError.moreThanOneValue { /* … */ }
    /// ```
    case moreThanOneValue
}
