extension Flow {
    /// Resubscribes after a failure, waiting as `backoff` says, until the flow finishes,
    /// `maxAttempts` subscriptions have failed, or `shouldRetry` turns an error down.
    ///
    /// ```swift
    /// let updates = socket.updates.retry(.exponential(initial: .seconds(1)), maxAttempts: 5, clock: clock)
    /// ```
    ///
    /// RxSwift: `retry(_:)`; Combine: `retry(_:)` (which counts retries, not attempts).
    ///
    /// Values already delivered stay delivered; a source may send them again. The failure that
    /// ends the retries is delivered, typed. Cancelling during a wait ends it at once.
    ///
    /// - Parameters:
    ///   - backoff: How long to wait before each resubscription; `.immediate` by default.
    ///   - maxAttempts: How many subscriptions at most, the first one included; at least 1.
    ///   - clock: The clock to wait on; `ManualClock` (AsyncBridgeTesting) in tests.
    ///   - shouldRetry: Whether a failure is worth another attempt; by default every one is.
    public func retry<C: Clock>(
        _ backoff: Backoff = .immediate,
        maxAttempts: Int,
        clock: C = ContinuousClock(),
        shouldRetry: @escaping @Sendable (Failure) -> Bool = { _ in true }
    ) -> Flow where C.Duration == Duration {
        checkCount(maxAttempts, of: "retry(_:maxAttempts:)", named: "maxAttempts", atLeast: 1)
        let upstream = self
        return Flow { subscriber in
            // Only later attempts can run once the subscriber holds its token, so only they check
            // for a cancellation from its handler on each value; the first runs before there is one.
            let laterReceive = subscriber.stoppingAtCancellation.receive
            let retry = RetryStorage(clock: clock, context: RetryContext(
                attempt: { retry, number in
                    // Owned by the retry storage, not a child of the subscriber's (which would keep
                    // one cancel action per attempt); registered first, so a racing cancel reaches it.
                    let subscription = FlowSubscription()
                    guard retry.register(number, cancel: { subscription.cancel() }) else { return }
                    upstream.run(FlowSubscriber(
                        subscription: subscription,
                        receive: number == 1 ? subscriber.receive : laterReceive,
                        complete: { completion in
                            switch completion {
                            case .finished:
                                retry.attemptEnded(number) { subscriber.complete(.finished) }
                            case .failure(let error):
                                retry.attemptFailed(number, error)
                            }
                        }
                    ))
                },
                giveUp: { error in subscriber.complete(.failure(error)) },
                shouldRetry: shouldRetry,
                backoff: backoff,
                maxAttempts: maxAttempts
            ))
            subscriber.subscription.onCancel { retry.cancel() }
            retry.start()
        }
    }

    /// Resubscribes after every failure, at once, for as long as it takes: the flow ends only
    /// when an attempt finishes, or when the subscriber cancels.
    ///
    /// ```swift
    /// let updates = socket.updates.retry()
    /// ```
    ///
    /// ``retry(_:maxAttempts:clock:shouldRetry:)`` without a limit. Synchronous failures are
    /// retried in a loop, in constant stack depth; on a source that fails at once every time,
    /// the flow never ends.
    ///
    /// RxSwift: `retry()`; Combine: `retry(.max)`.
    public func retry() -> Flow {
        retry(maxAttempts: .max)
    }
}
