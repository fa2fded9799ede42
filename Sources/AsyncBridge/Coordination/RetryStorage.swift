/// What the attempts of one retrying run need: how to start one, how to give up, and the
/// policy. Held by the ``RetryStateMachine`` only while the run goes on.
struct RetryContext<Failure: Error, C: Clock>: Sendable where C.Duration == Duration {
    /// Starts attempt `number` (from 1), which hands over its cancel action through the
    /// storage's `register` and reports through `attemptFailed` or `attemptEnded`.
    let attempt: @Sendable (RetryStorage<Failure, C>, _ number: Int) -> Void
    /// Fails the run with the error that ended the retries.
    let giveUp: @Sendable (Failure) -> Void
    let shouldRetry: @Sendable (Failure) -> Bool
    let backoff: Backoff
    let maxAttempts: Int

    /// The delay before the retry after attempt `number` failed with `error`, or `nil` for no
    /// retry. Calls the user's `shouldRetry` and the backoff's random source: never under a lock.
    func retryDelay(after number: Int, _ error: Failure) -> Duration? {
        guard number < maxAttempts, shouldRetry(error) else { return nil }
        return max(backoff.delay(beforeRetry: number), .zero)
    }
}

/// One retrying run, for `Flow.retry` (an attempt is a subscription) and `SharedFuture.retrying` (an
/// attempt is a new future): the lock-guarded ``RetryStateMachine``, and the backoff timer, a
/// task asleep on the clock between a failure and the next attempt.
///
/// The lock rule: events are decided under the lock; attempts start, the user's `shouldRetry`
/// runs, timers start and stop, attempts are cancelled, and what an event let go of (the
/// context with the user's closures, an attempt's cancel action, a timer) is released after
/// unlocking.
final class RetryStorage<Failure: Error, C: Clock>: Sendable where C.Duration == Duration {
    typealias Context = RetryContext<Failure, C>
    typealias Machine = RetryStateMachine<Context>

    private let machine: Lock<Machine>
    private let clock: C

    init(clock: C, context: Context) {
        self.clock = clock
        self.machine = .make(RetryStateMachine(context: context))
    }

    /// Decides `event` under the lock and returns its outcome; what it let go of is released
    /// when this returns, unlocked.
    private func decide<Outcome>(_ event: (inout Machine) -> (Outcome, Machine.Released)) -> Outcome {
        let (outcome, released) = machine.withLock(event)
        withExtendedLifetime(released) {}
        return outcome
    }

    /// Starts the first attempt (unless the run was cancelled already).
    func start() {
        guard let context = machine.withLock({ $0.context }) else { return }
        run(1, context)
    }

    /// Starts attempt `number`, then the attempts that fail while starting and are retried at
    /// once, in a loop.
    private func run(_ number: Int, _ context: Context) {
        var next: (number: Int, context: Context)? = (number, context)
        while let attempt = next {
            next = nil
            attempt.context.attempt(self, attempt.number)
            if case .startNext(let number, let context) = decide({ $0.attemptStarted(attempt.number) }) {
                next = (number, context)
            }
        }
    }

    /// From attempt `number`, while it starts: how to cancel it. Returns `false` if the run
    /// was cancelled: the attempt must not start, or must cancel itself.
    func register(_ number: Int, cancel: @escaping CancelAction) -> Bool {
        decide { $0.register(number, cancel: cancel) }
    }

    /// Attempt `number` failed with `error`: retry it (now or after the backoff), or give up.
    func attemptFailed(_ number: Int, _ error: Failure) {
        guard let context = machine.withLock({ $0.contextForFailure(of: number) }) else { return }
        let delay = context.retryDelay(after: number, error)
        switch decide({ $0.attemptFailed(number, retryAfter: delay) }) {
        case .none:
            break
        case .giveUp(let context):
            context.giveUp(error)
        case .start(let next, let context):
            run(next, context)
        case .wait(let next, _):
            let deadline = clock.now.advanced(by: delay ?? .zero)
            let timer = Task { [clock] in
                do {
                    try await clock.sleep(until: deadline, tolerance: nil)
                } catch {
                    return  // cancelled with the run
                }
                guard let context = self.decide({ $0.timerFired(before: next) }) else { return }
                self.run(next, context)
            }
            if !decide({ $0.timerStarted(timer, before: next) }) { timer.cancel() }
        }
    }

    /// Attempt `number` ended the run: `deliver` hands its outcome on, unless the run was
    /// cancelled first. The run's context is released after that, unlocked.
    func attemptEnded(_ number: Int, deliver: () -> Void) {
        let (shouldDeliver, released) = machine.withLock { $0.attemptEnded(number) }
        withExtendedLifetime(released) {
            if shouldDeliver { deliver() }
        }
    }

    /// Cancels the run: the attempt in flight or the backoff's timer, and no attempt after.
    /// What the run held is released last, unlocked.
    func cancel() {
        let teardown = machine.withLock { $0.cancel() }
        withExtendedLifetime(teardown) {
            teardown.timer?.cancel()
            teardown.cancelAttempt?()
        }
    }
}
