extension Flow {
    /// A flow that, for each subscription, makes a resource, runs the flow built from it, and
    /// releases the resource exactly once when the subscription ends: by finishing, failing or
    /// being cancelled.
    ///
    /// Useful for what a subscription owns: a file handle, a socket, a database cursor.
    ///
    /// ```swift
    /// let lines = Flow<String, IOError>.using {
    ///     try FileReader(path: path)   // throws(IOError): the flow fails with it
    /// } release: { reader in
    ///     reader.close()
    /// } flow: { reader in
    ///     reader.lines
    /// }
    /// ```
    ///
    /// - **When.** On completion, `release` runs after the completion was delivered; on
    ///   cancellation, after the flow's own cancel actions ran, so its sources have stopped
    ///   using the resource. If the subscription ends while the flow is still being started
    ///   (a source that completes, or a subscriber that cancels, during the subscribe),
    ///   `release` waits until the start has returned.
    /// - **Where.** On the thread that ended the subscription, never under a lock of the
    ///   library: `release` may cancel, send to a subject, or subscribe again.
    /// - **Failure.** `makeResource` throws the flow's own failure; the flow then fails with it,
    ///   and there is nothing to release. Write the flow's type (`Flow<String, IOError>.using`)
    ///   or `.using` where the context gives it: from a bare `Flow.using`, Swift takes the
    ///   failure type from a `makeResource` that throws nothing (`Never`) and rejects the call
    ///   ("invalid conversion of thrown error type 'Never' to 'IOError'").
    ///
    /// RxSwift: `Observable.using(_:observableFactory:)`, whose resource is a `Disposable`
    /// (here any value, with `release` to dispose of it); Combine: (none).
    public static func using<Resource: Sendable>(
        _ makeResource: @escaping @Sendable () throws(Failure) -> Resource,
        release: @escaping @Sendable (Resource) -> Void,
        flow makeFlow: @escaping @Sendable (Resource) -> Flow
    ) -> Flow {
        Flow { subscriber in
            let resource: Resource
            do throws(Failure) {
                resource = try makeResource()
            } catch {
                return subscriber.complete(.failure(error))
            }
            let held = HeldResource(resource, release: release)
            // Not a child: one action, so that the flow's sources are cancelled before the release.
            let subscription = FlowSubscription()
            subscriber.subscription.onCancel {
                subscription.cancel()
                held.end()
            }
            let complete = subscriber.complete
            makeFlow(resource).run(FlowSubscriber(
                subscription: subscription,
                receive: subscriber.receive,
                complete: { completion in
                    complete(completion)
                    held.end()
                }
            ))
            held.started()
        }
    }
}

/// The resource of one `Flow.using` subscription: released once the subscription has ended
/// (``end()``) and its start has returned (``started()``), whichever comes last; the release
/// runs after unlocking.
final class HeldResource<Resource: Sendable>: Sendable {
    private let state: Lock<(resource: Resource?, starting: Bool, ended: Bool)>
    private let release: @Sendable (Resource) -> Void

    init(_ resource: Resource, release: @escaping @Sendable (Resource) -> Void) {
        state = .make((resource, true, false))
        self.release = release
    }

    /// The subscription ended.
    func end() {
        let due = state.withLock { state -> Resource? in
            state.ended = true
            return state.starting ? nil : state.resource.take()
        }
        if let due { release(due) }
    }

    /// The start returned.
    func started() {
        let due = state.withLock { state -> Resource? in
            state.starting = false
            return state.ended ? state.resource.take() : nil
        }
        if let due { release(due) }
    }
}
