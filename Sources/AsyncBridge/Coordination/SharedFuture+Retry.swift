extension SharedFuture {
    /// A future that runs the future `makeFuture` returns, and a new one after a failure,
    /// waiting as `backoff` says, until one succeeds, `maxAttempts` have failed, or
    /// `shouldRetry` turns an error down.
    ///
    /// ```swift
    /// let user = SharedFuture.retrying(.exponential(initial: .milliseconds(200)), maxAttempts: 3) {
    ///     SharedFuture { api.getUser(id: 42, completion: $0) }   // a new future per attempt
    /// }
    /// ```
    ///
    /// RxSwift: `retry(_:)` on a `Single`; Combine: `retry(_:)` (which counts retries).
    ///
    /// `makeFuture` must return a new future each time (a future memoises its failure). Lazy:
    /// the first attempt starts with the first consumer. The failure is the last attempt's,
    /// typed; an ``AsyncBridgeError`` is not retried. When the last consumer leaves, the attempt
    /// or the wait in progress is cancelled.
    ///
    /// - Parameters:
    ///   - backoff: How long to wait before each retry; `.immediate` by default.
    ///   - maxAttempts: How many attempts at most, the first one included; at least 1.
    ///   - clock: The clock to wait on; `ManualClock` (AsyncBridgeTesting) in tests.
    ///   - shouldRetry: Whether a failure is worth another attempt; by default every one is.
    ///   - makeFuture: Makes the future of one attempt.
    public static func retrying<C: Clock>(
        _ backoff: Backoff = .immediate,
        maxAttempts: Int,
        clock: C = ContinuousClock(),
        shouldRetry: @escaping @Sendable (Failure) -> Bool = { _ in true },
        _ makeFuture: @escaping @Sendable () -> SharedFuture
    ) -> SharedFuture where C.Duration == Duration {
        checkCount(maxAttempts, of: "SharedFuture.retrying(_:maxAttempts:)", named: "maxAttempts", atLeast: 1)
        return SharedFuture(work: { completer in
            let retry = RetryStorage(clock: clock, context: RetryContext(
                attempt: { retry, number in
                    let future = makeFuture()
                    guard let id = future.subscribe({ outcome in
                        switch outcome {
                        case .failure(let error)?:
                            retry.attemptFailed(number, error)
                        case let outcome?:
                            retry.attemptEnded(number) { completer.complete(outcome) }
                        case nil:
                            break  // this attempt was cancelled
                        }
                    }) else { return }
                    if !retry.register(number, cancel: { future.remove(id) }) { future.remove(id) }
                },
                giveUp: { error in completer.complete(.failure(error)) },
                shouldRetry: shouldRetry,
                backoff: backoff,
                maxAttempts: maxAttempts
            ))
            retry.start()
            return { retry.cancel() }
        })
    }
}
