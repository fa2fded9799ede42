// Completion blocks of every common shape → `Flow`: one call per subscription, one value then
// finished, or a failure. A body that takes a second parameter, `onCancel`, is cancellable.

extension Flow where Element: Sendable {
    /// One call of a `(Result<Element, Failure>) -> Void` completion-block API per subscription.
    ///
    /// ```swift
    /// let user: Flow<User, APIError> = Flow { api.getUser(id: 42, completion: $0) }
    /// ```
    ///
    /// RxSwift: `Observable.create`; Combine: `Deferred { Future { … } }`.
    ///
    /// A block released without being called fails the flow with
    /// ``AsyncBridgeError/completionNeverCalled`` when `Failure` is `any Error`; with a typed
    /// `Failure` the flow finishes without a value. Debug builds report it (``MisuseReport``).
    @inlinable
    public init(fileID: StaticString = #fileID, line: UInt = #line, _ body: @escaping @Sendable (_ completion: @escaping @Sendable (Result<Element, Failure>) -> Void) -> Void) {
        self = .deferred { Flow(SharedFuture(operation: .result(body), bridge: .flow, fileID: fileID, line: line)) }
    }

    /// One call of a cancellable `(Result<Element, Failure>) -> Void` API per subscription;
    /// cancelling runs the actions given to `onCancel`. A dropped block ends the flow as in
    /// ``init(fileID:line:_:)-(_,_,((Result<Element,Failure>)->Void)->Void)``.
    ///
    /// ```swift
    /// let user = Flow<User, APIError> { completion, onCancel in
    ///     let request = api.getUserCancellable(id: 42, completion: completion)
    ///     onCancel { request.cancel() }
    /// }
    /// ```
    @inlinable
    public init(fileID: StaticString = #fileID, line: UInt = #line, _ body: @escaping @Sendable (_ completion: @escaping @Sendable (Result<Element, Failure>) -> Void, _ onCancel: (@escaping CancelAction) -> Void) -> Void) {
        self = .deferred { Flow(SharedFuture(operation: .cancellableResult { completion in cancelAction { onCancel in body(completion, onCancel) } }, bridge: .flow, fileID: fileID, line: line)) }
    }
}

extension Flow where Element: Sendable, Failure == any Error {
    /// One call of a `(Element?, Error?) -> Void` completion-block API per subscription. A
    /// dropped block fails the flow with ``AsyncBridgeError/completionNeverCalled``.
    ///
    /// ```swift
    /// let data = Flow { legacy.fetchData(completion: $0) }   // Flow<Data, any Error>
    /// ```
    @inlinable
    public init(fileID: StaticString = #fileID, line: UInt = #line, _ body: @escaping @Sendable (_ completion: @escaping @Sendable (Element?, (any Error)?) -> Void) -> Void) {
        self = .deferred { Flow(SharedFuture(operation: .valueOrError(body), bridge: .flow, fileID: fileID, line: line)) }
    }

    /// One call of a cancellable `(Element?, Error?) -> Void` API per subscription. A dropped
    /// block fails the flow with ``AsyncBridgeError/completionNeverCalled``.
    ///
    /// ```swift
    /// let data = Flow<Data, any Error> { completion, onCancel in
    ///     let task = session.dataTask(with: url) { data, _, error in completion(data, error) }
    ///     task.resume()
    ///     onCancel { task.cancel() }
    /// }
    /// ```
    @inlinable
    public init(fileID: StaticString = #fileID, line: UInt = #line, _ body: @escaping @Sendable (_ completion: @escaping @Sendable (Element?, (any Error)?) -> Void, _ onCancel: (@escaping CancelAction) -> Void) -> Void) {
        self = .deferred { Flow(SharedFuture(operation: .cancellableValueOrError { completion in cancelAction { onCancel in body(completion, onCancel) } }, bridge: .flow, fileID: fileID, line: line)) }
    }
}

extension Flow where Element == Void, Failure == any Error {
    /// One call of an `(Error?) -> Void` completion-block API per subscription. A dropped
    /// block fails the flow with ``AsyncBridgeError/completionNeverCalled``.
    ///
    /// ```swift
    /// let saved = Flow { store.save(user, completion: $0) }   // Flow<Void, any Error>
    /// ```
    @inlinable
    public init(fileID: StaticString = #fileID, line: UInt = #line, _ body: @escaping @Sendable (_ completion: @escaping @Sendable ((any Error)?) -> Void) -> Void) {
        self = .deferred { Flow(SharedFuture(operation: .error(body), bridge: .flow, fileID: fileID, line: line)) }
    }

    /// One call of a cancellable `(Error?) -> Void` API per subscription. A dropped block fails
    /// the flow with ``AsyncBridgeError/completionNeverCalled``.
    ///
    /// ```swift
    /// let upload = Flow<Void, any Error> { completion, onCancel in
    ///     let job = uploader.upload(file, completion: completion)
    ///     onCancel { job.cancel() }
    /// }
    /// ```
    @inlinable
    public init(fileID: StaticString = #fileID, line: UInt = #line, _ body: @escaping @Sendable (_ completion: @escaping @Sendable ((any Error)?) -> Void, _ onCancel: (@escaping CancelAction) -> Void) -> Void) {
        self = .deferred { Flow(SharedFuture(operation: .cancellableError { completion in cancelAction { onCancel in body(completion, onCancel) } }, bridge: .flow, fileID: fileID, line: line)) }
    }
}

extension Flow where Element: Sendable, Failure == Never {
    /// One call of a `(Element) -> Void` completion-block API per subscription. A dropped
    /// block finishes the flow without a value (debug builds report it).
    ///
    /// ```swift
    /// let status = Flow.neverFailing { permissions.currentStatus(completion: $0) }
    /// ```
    @inlinable
    public static func neverFailing(fileID: StaticString = #fileID, line: UInt = #line, _ body: @escaping @Sendable (_ completion: @escaping @Sendable (Element) -> Void) -> Void) -> Flow {
        .deferred { Flow(SharedFuture(operation: .value(body), bridge: .flowNeverFailing, fileID: fileID, line: line)) }
    }

    /// One call of a cancellable `(Element) -> Void` API per subscription. A dropped block
    /// finishes the flow without a value.
    ///
    /// ```swift
    /// let location = Flow<Location, Never>.neverFailing { completion, onCancel in
    ///     let request = locator.requestLocation(completion: completion)
    ///     onCancel { request.cancel() }
    /// }
    /// ```
    @inlinable
    public static func neverFailing(fileID: StaticString = #fileID, line: UInt = #line, _ body: @escaping @Sendable (_ completion: @escaping @Sendable (Element) -> Void, _ onCancel: (@escaping CancelAction) -> Void) -> Void) -> Flow {
        .deferred { Flow(SharedFuture(operation: .cancellableValue { completion in cancelAction { onCancel in body(completion, onCancel) } }, bridge: .flowNeverFailing, fileID: fileID, line: line)) }
    }
}

extension Flow where Element == Void, Failure == Never {
    /// One call of a `() -> Void` completion-block API per subscription. A dropped block
    /// finishes the flow without a value (debug builds report it).
    ///
    /// ```swift
    /// let dismissed = Flow { presenter.dismiss(animated: true, completion: $0) }
    /// ```
    @inlinable
    public init(fileID: StaticString = #fileID, line: UInt = #line, _ body: @escaping @Sendable (_ completion: @escaping @Sendable () -> Void) -> Void) {
        self = .deferred { Flow(SharedFuture(operation: .signal(body), bridge: .flow, fileID: fileID, line: line)) }
    }

    /// One call of a cancellable `() -> Void` API per subscription. A dropped block finishes
    /// the flow without a value.
    ///
    /// ```swift
    /// let flushed = Flow<Void, Never> { completion, onCancel in
    ///     let flush = logger.flush(completion: completion)
    ///     onCancel { flush.cancel() }
    /// }
    /// ```
    @inlinable
    public init(fileID: StaticString = #fileID, line: UInt = #line, _ body: @escaping @Sendable (_ completion: @escaping @Sendable () -> Void, _ onCancel: (@escaping CancelAction) -> Void) -> Void) {
        self = .deferred { Flow(SharedFuture(operation: .cancellableSignal { completion in cancelAction { onCancel in body(completion, onCancel) } }, bridge: .flow, fileID: fileID, line: line)) }
    }
}
