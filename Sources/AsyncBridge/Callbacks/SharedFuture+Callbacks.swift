// Completion blocks of every common shape → `SharedFuture`.
//
// Each shape has two initialisers: one for an operation that cannot be cancelled, and one
// whose closure hands back a `CancelAction`. The completion block given to the closure may be
// called from any thread, synchronously or later; a second call is ignored (and reported in
// debug builds), and a block released without being called ends the run with
// `AsyncBridgeError.completionNeverCalled`.
//
// The shapes are overloads of one initialiser, picked by the completion block's type, which
// the closure's body decides: `SharedFuture { api.load(completion: $0) }`, or a closure of several
// statements that hands `completion` to the API or calls it (`completion(data, error)`). Only
// when the body does not say (it ignores the block, or only stores it) is the call ambiguous;
// then name the block's type:
//
//     SharedFuture { (completion: @escaping @Sendable (Data?, (any Error)?) -> Void) in … }
//
// Cancellable or not is told by the body too: a closure that returns a `CancelAction` can only
// be the cancellable form. A closure of several statements with no `return` fits both (Swift
// does not rule out a closure whose result type is not `Void` for lacking a `return`), so the
// cancellable overloads are `@_disfavoredOverload`: that body is a plain one. That is the only
// use of the attribute in this spoke; the shapes need none, since a body fits one shape only.
//
// Each takes `fileID` and `line`, defaulted to its caller's, which the misuse reports of the
// future's runs name (`MisuseReport`).

extension SharedFuture {
    /// Wraps a `(Result<Success, Failure>) -> Void` completion-block API.
    ///
    /// RxSwift: `Single.create`; Combine: `Deferred { Future { promise in … } }`.
    ///
    /// ```swift
    /// let user = SharedFuture { api.getUser(id: 42, completion: $0) }   // SharedFuture<User, APIError>
    /// ```
    @inlinable
    public init(fileID: StaticString = #fileID, line: UInt = #line, _ body: @escaping @Sendable (_ completion: @escaping @Sendable (Result<Success, Failure>) -> Void) -> Void) {
        self.init(operation: .result(body), bridge: .sharedFuture, fileID: fileID, line: line)
    }

    /// Wraps a cancellable `(Result<Success, Failure>) -> Void` completion-block API: the
    /// closure starts the operation and returns how to cancel it.
    ///
    /// ```swift
    /// let user = SharedFuture<User, APIError> { completion in
    ///     let request = api.getUserCancellable(id: 42, completion: completion)
    ///     return { request.cancel() }
    /// }
    /// ```
    @inlinable @_disfavoredOverload  // a body without `return` is the plain form (see the header)
    public init(fileID: StaticString = #fileID, line: UInt = #line, _ body: @escaping @Sendable (_ completion: @escaping @Sendable (Result<Success, Failure>) -> Void) -> CancelAction) {
        self.init(operation: .cancellableResult(body), bridge: .sharedFuture, fileID: fileID, line: line)
    }
}

extension SharedFuture where Failure == any Error {
    /// Wraps a `(Success?, Error?) -> Void` completion-block API (the Objective-C shape).
    ///
    /// An error wins over a value; both `nil` fails with
    /// ``AsyncBridgeError/missingValueAndError``.
    ///
    /// ```swift
    /// let data = SharedFuture { legacy.fetchData(completion: $0) }   // SharedFuture<Data, any Error>
    /// ```
    @inlinable
    public init(fileID: StaticString = #fileID, line: UInt = #line, _ body: @escaping @Sendable (_ completion: @escaping @Sendable (Success?, (any Error)?) -> Void) -> Void) {
        self.init(operation: .valueOrError(body), bridge: .sharedFuture, fileID: fileID, line: line)
    }

    /// Wraps a cancellable `(Success?, Error?) -> Void` completion-block API.
    ///
    /// ```swift
    /// let data = SharedFuture<Data, any Error> { completion in
    ///     let task = session.dataTask(with: url) { data, _, error in completion(data, error) }
    ///     task.resume()
    ///     return { task.cancel() }
    /// }
    /// ```
    @inlinable @_disfavoredOverload  // a body without `return` is the plain form (see the header)
    public init(fileID: StaticString = #fileID, line: UInt = #line, _ body: @escaping @Sendable (_ completion: @escaping @Sendable (Success?, (any Error)?) -> Void) -> CancelAction) {
        self.init(operation: .cancellableValueOrError(body), bridge: .sharedFuture, fileID: fileID, line: line)
    }
}

extension SharedFuture where Success == Void, Failure == any Error {
    /// Wraps an `(Error?) -> Void` completion-block API: `nil` means success.
    ///
    /// ```swift
    /// let saved = SharedFuture { store.save(user, completion: $0) }   // SharedFuture<Void, any Error>
    /// ```
    @inlinable
    public init(fileID: StaticString = #fileID, line: UInt = #line, _ body: @escaping @Sendable (_ completion: @escaping @Sendable ((any Error)?) -> Void) -> Void) {
        self.init(operation: .error(body), bridge: .sharedFuture, fileID: fileID, line: line)
    }

    /// Wraps a cancellable `(Error?) -> Void` completion-block API.
    ///
    /// ```swift
    /// let upload = SharedFuture<Void, any Error> { completion in
    ///     let job = uploader.upload(file, completion: completion)
    ///     return { job.cancel() }
    /// }
    /// ```
    @inlinable @_disfavoredOverload  // a body without `return` is the plain form (see the header)
    public init(fileID: StaticString = #fileID, line: UInt = #line, _ body: @escaping @Sendable (_ completion: @escaping @Sendable ((any Error)?) -> Void) -> CancelAction) {
        self.init(operation: .cancellableError(body), bridge: .sharedFuture, fileID: fileID, line: line)
    }
}

extension SharedFuture where Failure == Never {
    /// Wraps a `(Success) -> Void` completion-block API that cannot fail.
    ///
    /// A name of its own keeps this shape apart from the others: any completion block fits
    /// `(Success) -> Void`, so as an overload of `init` it would turn an `(Error?) -> Void` API
    /// into a `SharedFuture<Error?, Never>` that swallows the error.
    ///
    /// ```swift
    /// let status = SharedFuture.neverFailing { permissions.currentStatus(completion: $0) }   // SharedFuture<Status, Never>
    /// ```
    @inlinable
    public static func neverFailing(
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: @escaping @Sendable (_ completion: @escaping @Sendable (Success) -> Void) -> Void
    ) -> SharedFuture {
        SharedFuture(operation: .value(body), bridge: .sharedFutureNeverFailing, fileID: fileID, line: line)
    }

    /// Wraps a cancellable `(Success) -> Void` completion-block API.
    ///
    /// ```swift
    /// let location = SharedFuture<Location, Never>.neverFailing { completion in
    ///     let request = locator.requestLocation(completion: completion)
    ///     return { request.cancel() }
    /// }
    /// ```
    @inlinable @_disfavoredOverload  // a body without `return` is the plain form (see the header)
    public static func neverFailing(
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: @escaping @Sendable (_ completion: @escaping @Sendable (Success) -> Void) -> CancelAction
    ) -> SharedFuture {
        SharedFuture(operation: .cancellableValue(body), bridge: .sharedFutureNeverFailing, fileID: fileID, line: line)
    }
}

extension SharedFuture where Success == Void, Failure == Never {
    /// Wraps a `() -> Void` completion-block API: the call itself is the signal.
    ///
    /// ```swift
    /// let dismissed = SharedFuture { presenter.dismiss(animated: true, completion: $0) }
    /// ```
    @inlinable
    public init(fileID: StaticString = #fileID, line: UInt = #line, _ body: @escaping @Sendable (_ completion: @escaping @Sendable () -> Void) -> Void) {
        self.init(operation: .signal(body), bridge: .sharedFuture, fileID: fileID, line: line)
    }

    /// Wraps a cancellable `() -> Void` completion-block API.
    ///
    /// ```swift
    /// let flushed = SharedFuture<Void, Never> { completion in
    ///     let flush = logger.flush(completion: completion)
    ///     return { flush.cancel() }
    /// }
    /// ```
    @inlinable @_disfavoredOverload  // a body without `return` is the plain form (see the header)
    public init(fileID: StaticString = #fileID, line: UInt = #line, _ body: @escaping @Sendable (_ completion: @escaping @Sendable () -> Void) -> CancelAction) {
        self.init(operation: .cancellableSignal(body), bridge: .sharedFuture, fileID: fileID, line: line)
    }
}

extension Result {
    /// The `(T?, Error?)` convention: an error wins; both `nil` is a broken contract.
    ///
    /// Written for any `Failure` so that one generic operation holds the shape; it is only used
    /// where `Failure == any Error`, which `missingValueAndError` always converts to.
    @inlinable
    init(value: Success?, error: Failure?) {
        if let error {
            self = .failure(error)
        } else if let value {
            self = .success(value)
        } else {
            self = .failure(AsyncBridgeError.missingValueAndError as! Failure)
        }
    }

    /// The `(Error?)` convention: `nil` is success (`success`, which is `()` where it is used).
    @inlinable
    init(error: Failure?, success: Success) {
        if let error {
            self = .failure(error)
        } else {
            self = .success(success)
        }
    }
}
