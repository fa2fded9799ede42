/// The sending side handed to ``Flow/create(_:)``: send
/// values, then finish or fail, from any thread.
///
/// Sends are delivered one at a time in the order they were made (sends racing on different
/// threads are ordered by who got there first). Anything sent after the completion, or after
/// the subscriber cancelled, is ignored.
///
/// ```swift
/// let ticks = Flow<Int, Never>.create { emitter in
///     emitter.send(1)
///     emitter.send(2)
///     emitter.finish()
/// }
/// ```
public final class FlowEmitter<Element: Sendable, Failure: Error>: Sendable {
    @usableFromInline
    let drain: SerialDrain<FlowEvent<Element, Failure>>
    @usableFromInline
    let subscription: FlowSubscription

    @inlinable
    init(_ subscriber: FlowSubscriber<Element, Failure>) {
        self.subscription = subscriber.subscription
        self.drain = SerialDrain { drain, event in
            switch event {
            case .value(let value):
                if subscriber.receive(value) == .stop { drain.close() }
            case .finished:
                drain.close()
                subscriber.complete(.finished)
            case .failure(let error):
                drain.close()
                subscriber.complete(.failure(error))
            }
        }
        subscriber.subscription.onCancel { [weak drain = self.drain] in drain?.close() }
    }

    /// Whether nobody listens any more (cancelled, a full `prefix`, or completed): a source that
    /// produces in a loop asks before each value.
    ///
    /// ```swift
    /// while !emitter.isCancelled { emitter.send(next()) }
    /// ```
    ///
    /// RxSwift: `Disposable.isDisposed`; Combine: a cancelled `Subscription`.
    @inlinable
    public var isCancelled: Bool {
        drain.isClosed
    }

    /// Runs `action` once if the subscriber cancels before the flow has completed (at once if
    /// it already has, never after completion): how to stop the work behind the flow. The
    /// emitter is closed first, so what `action` sends is ignored, as in RxSwift and Combine.
    ///
    /// RxSwift: the `Disposable` that `Observable.create`'s closure returns; Combine: a
    /// custom `Subscription`'s `cancel()`.
    ///
    /// ```swift
    /// let progress = Flow<Double, any Error>.create { emitter in
    ///     let job = uploader.upload(file, progress: { emitter.send($0) }, completion: { error in
    ///         if let error { emitter.fail(error) } else { emitter.finish() }
    ///     })
    ///     emitter.onCancel { job.cancel() }
    /// }
    /// ```
    @inlinable
    public func onCancel(_ action: @escaping CancelAction) {
        // The emitter's own closing was registered first, so it would run last: close here,
        // before the user's action.
        subscription.onCancel { [weak drain] in
            drain?.close()
            action()
        }
    }

    /// Sends a value.
    ///
    /// ```swift
    /// emitter.send(location)
    /// ```
    @inlinable
    public func send(_ value: Element) {
        drain.submit(.value(value))
    }

    /// Finishes the flow; later sends are ignored.
    ///
    /// ```swift
    /// emitter.finish()
    /// ```
    @inlinable
    public func finish() {
        drain.submit(.finished)
    }

    /// Fails the flow; later sends are ignored.
    ///
    /// ```swift
    /// emitter.fail(APIError.offline)
    /// ```
    @inlinable
    public func fail(_ error: Failure) {
        drain.submit(.failure(error))
    }

    /// Sends a `Result`: a value followed by finish, or a failure (a one-shot callback's shape).
    ///
    /// ```swift
    /// api.getUser(id: 42) { emitter.sendLast($0) }
    /// ```
    @inlinable
    public func sendLast(_ result: Result<Element, Failure>) {
        switch result {
        case .success(let value):
            send(value)
            finish()
        case .failure(let error):
            fail(error)
        }
    }
}

extension Flow {
    /// A flow whose every subscription runs `body` with an emitter.
    ///
    /// RxSwift: `Observable.create`; Combine: a custom `Publisher`.
    ///
    /// ```swift
    /// let names = Flow<String, Never>.create { emitter in
    ///     emitter.send("Ada")
    ///     emitter.finish()
    /// }
    /// ```
    @inlinable
    public static func create(_ body: @escaping @Sendable (FlowEmitter<Element, Failure>) -> Void) -> Flow {
        Flow { subscriber in body(FlowEmitter(subscriber)) }
    }
}
