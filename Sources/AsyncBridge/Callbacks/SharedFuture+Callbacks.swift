// Completion blocks of every common shape → `SharedFuture`, each plain and cancellable (the body
// takes `onCancel`); the block's type picks the shape, so a body that ignores the block must
// name its type. `fileID`/`line` locate misuse reports.

extension SharedFuture {
    /// Wraps a `(Result<Success, Failure>) -> Void` completion-block API.
    ///
    /// A block released without being called (any shape) ends the run with
    /// ``AsyncBridgeError/completionNeverCalled``, which `value` and `result` throw.
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
    /// closure starts the operation and tells `onCancel` how to cancel it.
    ///
    /// ```swift
    /// let user = SharedFuture<User, APIError> { completion, onCancel in
    ///     let request = api.getUserCancellable(id: 42, completion: completion)
    ///     onCancel { request.cancel() }
    /// }
    /// ```
    @inlinable
    public init(fileID: StaticString = #fileID, line: UInt = #line, _ body: @escaping @Sendable (_ completion: @escaping @Sendable (Result<Success, Failure>) -> Void, _ onCancel: (@escaping CancelAction) -> Void) -> Void) {
        self.init(operation: .cancellableResult { completion in cancelAction { onCancel in body(completion, onCancel) } }, bridge: .sharedFuture, fileID: fileID, line: line)
    }
}

extension SharedFuture where Failure == any Error {
    /// Wraps a `(Success?, Error?) -> Void` completion-block API (the Objective-C shape).
    ///
    /// An error wins over a value; both `nil` fails with ``AsyncBridgeError/missingValueAndError``.
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
    /// let data = SharedFuture<Data, any Error> { completion, onCancel in
    ///     let task = session.dataTask(with: url) { data, _, error in completion(data, error) }
    ///     task.resume()
    ///     onCancel { task.cancel() }
    /// }
    /// ```
    @inlinable
    public init(fileID: StaticString = #fileID, line: UInt = #line, _ body: @escaping @Sendable (_ completion: @escaping @Sendable (Success?, (any Error)?) -> Void, _ onCancel: (@escaping CancelAction) -> Void) -> Void) {
        self.init(operation: .cancellableValueOrError { completion in cancelAction { onCancel in body(completion, onCancel) } }, bridge: .sharedFuture, fileID: fileID, line: line)
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
    /// let upload = SharedFuture<Void, any Error> { completion, onCancel in
    ///     let job = uploader.upload(file, completion: completion)
    ///     onCancel { job.cancel() }
    /// }
    /// ```
    @inlinable
    public init(fileID: StaticString = #fileID, line: UInt = #line, _ body: @escaping @Sendable (_ completion: @escaping @Sendable ((any Error)?) -> Void, _ onCancel: (@escaping CancelAction) -> Void) -> Void) {
        self.init(operation: .cancellableError { completion in cancelAction { onCancel in body(completion, onCancel) } }, bridge: .sharedFuture, fileID: fileID, line: line)
    }
}

extension SharedFuture where Failure == Never {
    /// Wraps a `(Success) -> Void` completion-block API that cannot fail.
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
    /// let location = SharedFuture<Location, Never>.neverFailing { completion, onCancel in
    ///     let request = locator.requestLocation(completion: completion)
    ///     onCancel { request.cancel() }
    /// }
    /// ```
    @inlinable
    public static func neverFailing(
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: @escaping @Sendable (_ completion: @escaping @Sendable (Success) -> Void, _ onCancel: (@escaping CancelAction) -> Void) -> Void
    ) -> SharedFuture {
        SharedFuture(operation: .cancellableValue { completion in cancelAction { onCancel in body(completion, onCancel) } }, bridge: .sharedFutureNeverFailing, fileID: fileID, line: line)
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
    /// let flushed = SharedFuture<Void, Never> { completion, onCancel in
    ///     let flush = logger.flush(completion: completion)
    ///     onCancel { flush.cancel() }
    /// }
    /// ```
    @inlinable
    public init(fileID: StaticString = #fileID, line: UInt = #line, _ body: @escaping @Sendable (_ completion: @escaping @Sendable () -> Void, _ onCancel: (@escaping CancelAction) -> Void) -> Void) {
        self.init(operation: .cancellableSignal { completion in cancelAction { onCancel in body(completion, onCancel) } }, bridge: .sharedFuture, fileID: fileID, line: line)
    }
}

extension Result {
    /// The `(T?, Error?)` convention: an error wins; both `nil` is a broken contract. Used only
    /// where `Failure == any Error` (generic so that one operation type serves).
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
