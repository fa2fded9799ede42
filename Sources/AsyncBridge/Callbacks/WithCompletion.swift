// Completion blocks → `await`, without naming a `SharedFuture`.
//
// `withCompletion` is what `withCheckedThrowingContinuation` is for completion blocks, with
// the safety a hand-written continuation lacks: a block called twice is ignored, a block
// released without being called throws `AsyncBridgeError.completionNeverCalled` instead of
// hanging, and cancelling the awaiting task runs the operation's cancel action exactly once.
//
// The closure runs at once, on the caller's actor (or, in nonisolated code, in the caller's
// task), and so does the cancel action it returns: the wait ends as soon as the task is
// cancelled, and the action runs when the caller resumes, before `CancellationError` is thrown.
// Neither closure is `@Sendable`, so both may use what the caller holds, such as an object
// that is not `Sendable` (a legacy class and its request handle). Only the completion block may
// be called from any thread; a completion that comes after the cancellation is ignored.
//
// As with `SharedFuture`'s initialisers (see `SharedFuture+Callbacks.swift`), the shape is picked by the
// completion block's type, which the closure's body decides, and a body that returns a
// cancel action (`() -> Void`) is the cancellable form; the cancellable overloads are disfavored so that a
// body of several statements without `return` is the plain one. A body that does not say which
// shape it is (it ignores the block) names the block's type.
//
// Every form takes `fileID` and `line`, defaulted to its caller's, for the misuse reports
// (`MisuseReport`): a wrapper of its own passes its caller's on. Debug builds keep them beside
// the completer; release builds, which report nothing, drop them.
//
// Performance: each helper is inlined into its caller (`@inline(__always)`). Left out of line,
// an async function with an `isolated` parameter costs a hop to that executor on entry and one
// back on return even when it never suspends (a fifth of a call whose completion comes at
// once). The price is a larger call site: the synchronous path is inlined with it.

extension SharedFuture {
    /// Runs `start` with a fresh ``CallCompleter`` and waits for its completion: at once when
    /// it came while `start` ran, on a single-consumer future otherwise. Misuse reports name
    /// `bridge`, called at `fileID:line`. When the wait ends by cancellation, the cancel action
    /// `start` returned runs here, back on the caller's actor.
    @inlinable @inline(__always)
    static func bridge(
        isolation: isolated (any Actor)?,
        _ bridge: MisuseBridge,
        _ fileID: StaticString,
        _ line: UInt,
        _ start: (CallCompleter<Success, Failure>) -> (() -> Void)?
    ) async throws -> Success {
        var cancel: (() -> Void)?
        let outcome: FutureOutcome<Success, Failure>?
        switch CallCompleter.start(reporter: .current(bridge, fileID: fileID, line: line), { cancel = start($0) }) {
        case .served(let served): outcome = served
        case .waiting(let future): outcome = await future.wait(1, 1, isolation: isolation)
        }
        guard let outcome else {
            cancel?()
            throw CancellationError()
        }
        return try outcome.get()
    }
}

/// Awaits a `(Result<Success, Failure>) -> Void` completion-block API.
///
/// Throws the API's failure, `CancellationError`, or ``AsyncBridgeError``. `fileID` and
/// `line` locate the call in misuse reports (``MisuseReport``): leave them to their defaults,
/// or pass a wrapper's own caller's on.
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
    try await SharedFuture<Success, Failure>.bridge(isolation: isolation, .withCompletion, fileID, line) { completer in
        body { completer.resolve($0) }
        return nil
    }
}

/// Awaits a cancellable `(Result<Success, Failure>) -> Void` completion-block API: cancelling
/// the awaiting task runs the returned action once.
///
/// The body and its cancel action run on the caller's actor (in nonisolated code, in the
/// caller's task) and need not be `@Sendable`: they may use an object that is not `Sendable`,
/// such as a legacy API class and the request handle it returns.
///
/// ```swift
/// let user = try await withCompletion { completion in
///     let request = api.getUserCancellable(id: 42, completion: completion)
///     return { request.cancel() }
/// }
/// ```
@inlinable @inline(__always) @_disfavoredOverload  // a body without `return` is the plain form (see the header)
public func withCompletion<Success: Sendable, Failure: Error>(
    isolation: isolated (any Actor)? = #isolation,
    fileID: StaticString = #fileID,
    line: UInt = #line,
    _ body: (_ completion: @escaping @Sendable (Result<Success, Failure>) -> Void) -> () -> Void
) async throws -> Success {
    try await SharedFuture<Success, Failure>.bridge(isolation: isolation, .withCompletion, fileID, line) { completer in
        body { completer.resolve($0) }
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
    try await SharedFuture<Success, any Error>.bridge(isolation: isolation, .withCompletion, fileID, line) { completer in
        body { completer.resolve(Result(value: $0, error: $1)) }
        return nil
    }
}

/// Awaits a cancellable `(Success?, Error?) -> Void` completion-block API.
///
/// ```swift
/// let data: Data = try await withCompletion { completion in
///     let task = session.dataTask(with: url) { data, _, error in completion(data, error) }
///     task.resume()
///     return { task.cancel() }
/// }
/// ```
@inlinable @inline(__always) @_disfavoredOverload  // a body without `return` is the plain form (see the header)
public func withCompletion<Success: Sendable>(
    isolation: isolated (any Actor)? = #isolation,
    fileID: StaticString = #fileID,
    line: UInt = #line,
    _ body: (_ completion: @escaping @Sendable (Success?, (any Error)?) -> Void) -> () -> Void
) async throws -> Success {
    try await SharedFuture<Success, any Error>.bridge(isolation: isolation, .withCompletion, fileID, line) { completer in
        body { completer.resolve(Result(value: $0, error: $1)) }
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
    try await SharedFuture<Void, any Error>.bridge(isolation: isolation, .withCompletion, fileID, line) { completer in
        body { completer.resolve(Result(error: $0, success: ())) }
        return nil
    }
}

/// Awaits a cancellable `(Error?) -> Void` completion-block API.
///
/// ```swift
/// try await withCompletion { completion in
///     let job = uploader.upload(file, completion: completion)
///     return { job.cancel() }
/// }
/// ```
@inlinable @inline(__always) @_disfavoredOverload  // a body without `return` is the plain form (see the header)
public func withCompletion(
    isolation: isolated (any Actor)? = #isolation,
    fileID: StaticString = #fileID,
    line: UInt = #line,
    _ body: (_ completion: @escaping @Sendable ((any Error)?) -> Void) -> () -> Void
) async throws {
    try await SharedFuture<Void, any Error>.bridge(isolation: isolation, .withCompletion, fileID, line) { completer in
        body { completer.resolve(Result(error: $0, success: ())) }
    }
}

/// Awaits a `(Success) -> Void` completion-block API: a block that hands over a value and has
/// no way to report a failure.
///
/// The API cannot fail, but the call still can: it throws `CancellationError` when the
/// awaiting task is cancelled first, and ``AsyncBridgeError/completionNeverCalled`` when the
/// API releases the block without calling it. `try?` turns both into `nil`.
///
/// A name of its own keeps this shape apart from the others, which would all fit
/// `(Success) -> Void`: as a `withCompletion` overload it would turn an `(Error?) -> Void` API
/// into one that returns the error instead of throwing it.
///
/// RxSwift: `Single.create { … }.value`; Combine: `Future { promise in … }.value`.
///
/// ```swift
/// let status = try await withValueCompletion { permissions.currentStatus(completion: $0) }
/// ```
@inlinable @inline(__always)
public func withValueCompletion<Success: Sendable>(
    isolation: isolated (any Actor)? = #isolation,
    fileID: StaticString = #fileID,
    line: UInt = #line,
    _ body: (_ completion: @escaping @Sendable (Success) -> Void) -> Void
) async throws -> Success {
    try await SharedFuture<Success, Never>.bridge(isolation: isolation, .withValueCompletion, fileID, line) { completer in
        body { completer.resolve(.success($0)) }
        return nil
    }
}

/// Awaits a cancellable `(Success) -> Void` completion-block API: cancelling the awaiting task
/// runs the returned action once.
///
/// ```swift
/// let location = try await withValueCompletion { completion in
///     let request = locator.requestLocation(completion: completion)
///     return { request.cancel() }
/// }
/// ```
@inlinable @inline(__always) @_disfavoredOverload  // a body without `return` is the plain form (see the header)
public func withValueCompletion<Success: Sendable>(
    isolation: isolated (any Actor)? = #isolation,
    fileID: StaticString = #fileID,
    line: UInt = #line,
    _ body: (_ completion: @escaping @Sendable (Success) -> Void) -> () -> Void
) async throws -> Success {
    try await SharedFuture<Success, Never>.bridge(isolation: isolation, .withValueCompletion, fileID, line) { completer in
        body { completer.resolve(.success($0)) }
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

/// The former name of the cancellable `withValueCompletion`.
///
/// ```swift
/// let location = try await withValueCompletion { completion in
///     let request = locator.requestLocation(completion: completion)
///     return { request.cancel() }
/// }
/// ```
@available(*, deprecated, renamed: "withValueCompletion(isolation:fileID:line:_:)")
@inlinable @inline(__always) @_disfavoredOverload
public func withNeverFailingCompletion<Success: Sendable>(
    isolation: isolated (any Actor)? = #isolation,
    fileID: StaticString = #fileID,
    line: UInt = #line,
    _ body: (_ completion: @escaping @Sendable (Success) -> Void) -> () -> Void
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
    try await SharedFuture<Void, Never>.bridge(isolation: isolation, .withCompletion, fileID, line) { completer in
        body { completer.resolve(.success(())) }
        return nil
    }
}

/// Awaits a cancellable `() -> Void` completion-block API.
///
/// ```swift
/// try await withCompletion { completion in
///     let flush = logger.flush(completion: completion)
///     return { flush.cancel() }
/// }
/// ```
@inlinable @inline(__always) @_disfavoredOverload  // a body without `return` is the plain form (see the header)
public func withCompletion(
    isolation: isolated (any Actor)? = #isolation,
    fileID: StaticString = #fileID,
    line: UInt = #line,
    _ body: (_ completion: @escaping @Sendable () -> Void) -> () -> Void
) async throws {
    try await SharedFuture<Void, Never>.bridge(isolation: isolation, .withCompletion, fileID, line) { completer in
        body { completer.resolve(.success(())) }
    }
}
