/// The decisions of one retrying run (a `Flow.retry` subscription, a `Future.retrying` run),
/// made under ``RetryStorage``'s lock. Each event returns what to do once the lock is released:
/// start an attempt, start or cancel the backoff timer, cancel an attempt, give up. None of that
/// happens here.
///
/// ```
/// attempting(n) ──failed, retry after a delay──▶ waiting(n + 1) ──timer──▶ attempting(n + 1)
///      │    ▲                                                                     │
///      │    └─────────────────── failed, retry at once ◀──────────────────────────┘
///      └──succeeded, failed for good, cancelled──▶ ended
/// ```
///
/// Attempts that fail while they start (a source that fails synchronously) and are retried at
/// once are started in a loop by the thread that started the first, not recursively: any
/// number of them runs in constant stack depth.
///
/// `Context` is what the attempts need (the upstream, the subscriber, the policy); it is held
/// only while the run goes on, so that ending releases it even if the timer's task is still
/// winding down.
struct RetryStateMachine<Context: Sendable>: Sendable {
    private enum State {
        /// Attempt `number` runs, or is being started (`starting`: its starter has not returned;
        /// `retryNow`: it failed meanwhile and asked for an immediate retry, which the starter
        /// runs). `cancel` is its cancel action, once it registered one.
        case attempting(number: Int, starting: Bool, retryNow: Bool, cancel: CancelAction?, Context)
        /// Waiting out the backoff before attempt `number`; `timer` once its starter recorded it.
        case waiting(number: Int, timer: Task<Void, Never>?, Context)
        /// Succeeded or failed for good, or (`cancelled`) cancelled.
        case ended(cancelled: Bool)
    }

    private var state: State

    /// The first attempt, about to be started by the caller.
    init(context: Context) {
        state = .attempting(number: 1, starting: true, retryNow: false, cancel: nil, context)
    }

    /// The context, for the first attempt's starter.
    var context: Context? {
        switch state {
        case .attempting(_, _, _, _, let context), .waiting(_, _, let context): return context
        case .ended: return nil
        }
    }

    /// Attempt `number`, being started, hands over how to cancel it: before it subscribes,
    /// where it can (so that a cancellation racing the start reaches it), or once it has.
    /// Returns `false` if the run was cancelled meanwhile: the attempt does not start, or
    /// cancels itself.
    mutating func register(_ number: Int, cancel: @escaping CancelAction) -> Bool {
        switch state {
        case .attempting(number, true, false, nil, let context):
            state = .attempting(number: number, starting: true, retryNow: false, cancel: cancel, context)
            return true
        case .ended(cancelled: true):
            return false
        default:
            return true  // it has ended already: there is nothing to cancel
        }
    }

    /// What the starter of an attempt does after its start returned.
    enum Started {
        case none
        /// The attempt failed while it started and is retried at once: start attempt `number`.
        case startNext(number: Int, Context)
    }

    /// The start of attempt `number` returned.
    mutating func attemptStarted(_ number: Int) -> Started {
        switch state {
        case .attempting(number, true, false, let cancel, let context):
            state = .attempting(number: number, starting: false, retryNow: false, cancel: cancel, context)
            return .none
        case .attempting(number, true, true, _, let context):
            state = .attempting(number: number + 1, starting: true, retryNow: false, cancel: nil, context)
            return .startNext(number: number + 1, context)
        default:
            // It failed while starting and the run went on (a backoff, maybe a later attempt
            // already), or the run ended.
            return .none
        }
    }

    /// The context for deciding about attempt `number`'s failure; `nil` if the run has ended.
    func contextForFailure(of number: Int) -> Context? {
        guard case .attempting(number, _, _, _, let context) = state else { return nil }
        return context
    }

    /// What to do about a failed attempt.
    enum Failed {
        case none
        /// Fail the run with the attempt's error.
        case giveUp(Context)
        /// Start attempt `number` now.
        case start(number: Int, Context)
        /// Start the backoff timer for attempt `number`.
        case wait(number: Int, Context)
    }

    /// Attempt `number` failed; `retryAfter` is the delay before the next one, `nil` for none.
    mutating func attemptFailed(_ number: Int, retryAfter delay: Duration?) -> Failed {
        switch state {
        case .attempting(number, let starting, false, _, let context):
            guard let delay else {
                state = .ended(cancelled: false)
                return .giveUp(context)
            }
            if delay > .zero {
                state = .waiting(number: number + 1, timer: nil, context)
                return .wait(number: number + 1, context)
            }
            if starting {
                state = .attempting(number: number, starting: true, retryNow: true, cancel: nil, context)
                return .none
            }
            state = .attempting(number: number + 1, starting: true, retryNow: false, cancel: nil, context)
            return .start(number: number + 1, context)
        case .ended:
            return .none  // cancelled meanwhile
        default:
            preconditionFailure("Internal inconsistency: attempt \(number) failed while \(state)")
        }
    }

    /// Attempt `number` ended the run (it succeeded, or ended in a way that is not retried).
    /// Returns whether to deliver its outcome (`false`: the run was cancelled first).
    mutating func attemptEnded(_ number: Int) -> Bool {
        switch state {
        case .attempting(number, _, false, _, _):
            state = .ended(cancelled: false)
            return true
        case .ended:
            return false
        default:
            preconditionFailure("Internal inconsistency: attempt \(number) ended while \(state)")
        }
    }

    /// The backoff timer's task was created. Returns `false` if the run ended meanwhile: the
    /// caller cancels it.
    mutating func timerStarted(_ timer: Task<Void, Never>, before number: Int) -> Bool {
        switch state {
        case .waiting(number, nil, let context):
            state = .waiting(number: number, timer: timer, context)
            return true
        case .ended:
            return false
        default:
            return true  // it has fired already
        }
    }

    /// The backoff before attempt `number` is over: start it (`nil`: the run was cancelled).
    mutating func timerFired(before number: Int) -> Context? {
        switch state {
        case .waiting(number, _, let context):
            state = .attempting(number: number, starting: true, retryNow: false, cancel: nil, context)
            return context
        case .ended:
            return nil
        default:
            preconditionFailure("Internal inconsistency: the backoff before attempt \(number) ended while \(state)")
        }
    }

    /// What cancelling leaves to do outside the lock.
    struct Teardown {
        var cancelAttempt: CancelAction?
        var timer: Task<Void, Never>?
        /// Released outside the lock.
        var context: Context?
    }

    /// The run is cancelled: no further attempt starts.
    mutating func cancel() -> Teardown {
        switch state {
        case .attempting(_, _, _, let cancel, let context):
            // An attempt that has not registered its cancel action yet learns at ``register``.
            state = .ended(cancelled: true)
            return Teardown(cancelAttempt: cancel, timer: nil, context: context)
        case .waiting(_, let timer, let context):
            state = .ended(cancelled: true)
            return Teardown(cancelAttempt: nil, timer: timer, context: context)
        case .ended:
            return Teardown()
        }
    }
}
