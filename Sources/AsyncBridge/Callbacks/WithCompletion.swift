// Completion blocks → `await`, without naming a `SharedFuture`.
//
// The body and its cancel actions run on the caller's actor and need not be `@Sendable`; only
// the completion block may be called from any thread.
//
// Each helper is `@inline(__always)`: out of line, an `isolated` async function hops to that
// executor and back even when it never suspends.

/// Awaits a `(Result<Success, Failure>) -> Void` completion-block API.
///
/// Throws the API's failure, `CancellationError`, or ``AsyncBridgeError``. `fileID` and `line`
/// locate the call in misuse reports (``MisuseReport``).
///
/// ```swift
/// let user = try await withCompletion { api.getUser(id: 42, completion: $0) }
/// ```
@inlinable @inline(__always)
public func withCompletion<Success: Sendable, Failure: Error>(
    isolation: isolated (any Actor)? = #isolation,
    fileID: StaticString = #fileID,
    line: UInt = #line,
    _ body: (_ completion: @escaping @Sendable (Result<Success, Failure>) -> Void) -> Void
) async throws -> Success {
    try await CompletionWaiter<Success, Failure>.awaitCompletion(isolation: isolation, .withCompletion, fileID, line) { completer in
        body { completer.resolve($0) }
        return nil
    }
}

/// Awaits a cancellable `(Result<Success, Failure>) -> Void` completion-block API: cancelling
/// the awaiting task runs the actions the body gave `onCancel`, once, in order.
///
/// The body and its cancel action run on the caller's actor and need not be `@Sendable`.
///
/// ```swift
/// let user = try await withCompletion { completion, onCancel in
///     let request = api.getUserCancellable(id: 42, completion: completion)
///     onCancel { request.cancel() }
/// }
/// ```
@inlinable @inline(__always)
public func withCompletion<Success: Sendable, Failure: Error>(
    isolation: isolated (any Actor)? = #isolation,
    fileID: StaticString = #fileID,
    line: UInt = #line,
    _ body: (_ completion: @escaping @Sendable (Result<Success, Failure>) -> Void, _ onCancel: (@escaping () -> Void) -> Void) -> Void
) async throws -> Success {
    try await CompletionWaiter<Success, Failure>.awaitCompletion(isolation: isolation, .withCompletion, fileID, line) { completer in
        var cancel: (() -> Void)?
        body({ completer.resolve($0) }, { cancel = chained(cancel, $0) })
        return cancel
    }
}

/// Awaits a `(Success?, Error?) -> Void` completion-block API. An error wins over a value;
/// both `nil` throws ``AsyncBridgeError/missingValueAndError``.
///
/// ```swift
/// let data = try await withCompletion { legacy.fetchData(completion: $0) }
/// ```
@inlinable @inline(__always)
public func withCompletion<Success: Sendable>(
    isolation: isolated (any Actor)? = #isolation,
    fileID: StaticString = #fileID,
    line: UInt = #line,
    _ body: (_ completion: @escaping @Sendable (Success?, (any Error)?) -> Void) -> Void
) async throws -> Success {
    try await CompletionWaiter<Success, any Error>.awaitCompletion(isolation: isolation, .withCompletion, fileID, line) { completer in
        body { completer.resolve(Result(value: $0, error: $1)) }
        return nil
    }
}

/// Awaits a cancellable `(Success?, Error?) -> Void` completion-block API.
///
/// ```swift
/// let data: Data = try await withCompletion { completion, onCancel in
///     let task = session.dataTask(with: url) { data, _, error in completion(data, error) }
///     task.resume()
///     onCancel { task.cancel() }
/// }
/// ```
@inlinable @inline(__always)
public func withCompletion<Success: Sendable>(
    isolation: isolated (any Actor)? = #isolation,
    fileID: StaticString = #fileID,
    line: UInt = #line,
    _ body: (_ completion: @escaping @Sendable (Success?, (any Error)?) -> Void, _ onCancel: (@escaping () -> Void) -> Void) -> Void
) async throws -> Success {
    try await CompletionWaiter<Success, any Error>.awaitCompletion(isolation: isolation, .withCompletion, fileID, line) { completer in
        var cancel: (() -> Void)?
        body({ completer.resolve(Result(value: $0, error: $1)) }, { cancel = chained(cancel, $0) })
        return cancel
    }
}

/// Awaits an `(Error?) -> Void` completion-block API: `nil` means success.
///
/// ```swift
/// try await withCompletion { store.save(user, completion: $0) }
/// ```
@inlinable @inline(__always)
public func withCompletion(
    isolation: isolated (any Actor)? = #isolation,
    fileID: StaticString = #fileID,
    line: UInt = #line,
    _ body: (_ completion: @escaping @Sendable ((any Error)?) -> Void) -> Void
) async throws {
    try await CompletionWaiter<Void, any Error>.awaitCompletion(isolation: isolation, .withCompletion, fileID, line) { completer in
        body { completer.resolve(Result(error: $0, success: ())) }
        return nil
    }
}

/// Awaits a cancellable `(Error?) -> Void` completion-block API.
///
/// ```swift
/// try await withCompletion { completion, onCancel in
///     let job = uploader.upload(file, completion: completion)
///     onCancel { job.cancel() }
/// }
/// ```
@inlinable @inline(__always)
public func withCompletion(
    isolation: isolated (any Actor)? = #isolation,
    fileID: StaticString = #fileID,
    line: UInt = #line,
    _ body: (_ completion: @escaping @Sendable ((any Error)?) -> Void, _ onCancel: (@escaping () -> Void) -> Void) -> Void
) async throws {
    try await CompletionWaiter<Void, any Error>.awaitCompletion(isolation: isolation, .withCompletion, fileID, line) { completer in
        var cancel: (() -> Void)?
        body({ completer.resolve(Result(error: $0, success: ())) }, { cancel = chained(cancel, $0) })
        return cancel
    }
}

/// Awaits a `(Success) -> Void` completion-block API: a block that hands over a value and has
/// no way to report a failure.
///
/// ```swift
/// let status = try await withValueCompletion { permissions.currentStatus(completion: $0) }
/// ```
///
/// RxSwift: `Single.create { … }.value`; Combine: `Future { promise in … }.value`.
///
/// Throws `CancellationError` when the task is cancelled first, and
/// ``AsyncBridgeError/completionNeverCalled`` when the block is released without being called.
@inlinable @inline(__always)
public func withValueCompletion<Success: Sendable>(
    isolation: isolated (any Actor)? = #isolation,
    fileID: StaticString = #fileID,
    line: UInt = #line,
    _ body: (_ completion: @escaping @Sendable (Success) -> Void) -> Void
) async throws -> Success {
    try await CompletionWaiter<Success, Never>.awaitCompletion(isolation: isolation, .withValueCompletion, fileID, line) { completer in
        body { completer.resolve(.success($0)) }
        return nil
    }
}

/// Awaits a cancellable `(Success) -> Void` completion-block API: cancelling the awaiting task
/// runs the actions the body gave `onCancel`, once, in order.
///
/// ```swift
/// let location = try await withValueCompletion { completion, onCancel in
///     let request = locator.requestLocation(completion: completion)
///     onCancel { request.cancel() }
/// }
/// ```
@inlinable @inline(__always)
public func withValueCompletion<Success: Sendable>(
    isolation: isolated (any Actor)? = #isolation,
    fileID: StaticString = #fileID,
    line: UInt = #line,
    _ body: (_ completion: @escaping @Sendable (Success) -> Void, _ onCancel: (@escaping () -> Void) -> Void) -> Void
) async throws -> Success {
    try await CompletionWaiter<Success, Never>.awaitCompletion(isolation: isolation, .withValueCompletion, fileID, line) { completer in
        var cancel: (() -> Void)?
        body({ completer.resolve(.success($0)) }, { cancel = chained(cancel, $0) })
        return cancel
    }
}

/// The former name of ``withValueCompletion(isolation:fileID:line:_:)-(_,StaticString,UInt,((Success)->Void)->Void)``,
/// which throws (cancellation, a dropped block) although this name says it never fails.
///
/// ```swift
/// let status = try await withValueCompletion { permissions.currentStatus(completion: $0) }
/// ```
@available(*, deprecated, renamed: "withValueCompletion(isolation:fileID:line:_:)")
@inlinable @inline(__always)
public func withNeverFailingCompletion<Success: Sendable>(
    isolation: isolated (any Actor)? = #isolation,
    fileID: StaticString = #fileID,
    line: UInt = #line,
    _ body: (_ completion: @escaping @Sendable (Success) -> Void) -> Void
) async throws -> Success {
    try await withValueCompletion(isolation: isolation, fileID: fileID, line: line, body)
}

/// Awaits a `() -> Void` completion-block API.
///
/// ```swift
/// try await withCompletion { presenter.dismiss(animated: true, completion: $0) }
/// ```
@inlinable @inline(__always)
public func withCompletion(
    isolation: isolated (any Actor)? = #isolation,
    fileID: StaticString = #fileID,
    line: UInt = #line,
    _ body: (_ completion: @escaping @Sendable () -> Void) -> Void
) async throws {
    try await CompletionWaiter<Void, Never>.awaitCompletion(isolation: isolation, .withCompletion, fileID, line) { completer in
        body { completer.resolve(.success(())) }
        return nil
    }
}

/// Awaits a cancellable `() -> Void` completion-block API.
///
/// ```swift
/// try await withCompletion { completion, onCancel in
///     let flush = logger.flush(completion: completion)
///     onCancel { flush.cancel() }
/// }
/// ```
@inlinable @inline(__always)
public func withCompletion(
    isolation: isolated (any Actor)? = #isolation,
    fileID: StaticString = #fileID,
    line: UInt = #line,
    _ body: (_ completion: @escaping @Sendable () -> Void, _ onCancel: (@escaping () -> Void) -> Void) -> Void
) async throws {
    try await CompletionWaiter<Void, Never>.awaitCompletion(isolation: isolation, .withCompletion, fileID, line) { completer in
        var cancel: (() -> Void)?
        body({ completer.resolve(.success(())) }, { cancel = chained(cancel, $0) })
        return cancel
    }
}
