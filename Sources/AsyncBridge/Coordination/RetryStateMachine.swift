/// The decisions of one retrying run (a `Flow.retry` subscription, a `SharedFuture.retrying` run),
/// made under ``RetryStorage``'s lock. Each event returns what to do once the lock is released
/// (start or cancel an attempt or the backoff timer, give up); none of it happens here.
///
/// ```
/// attempting(n) ──failed, retry after a delay──▶ waiting(n + 1) ──timer──▶ attempting(n + 1)
///      │    ▲                                                                     │
///      │    └─────────────────── failed, retry at once ◀──────────────────────────┘
///      └──succeeded, failed for good, cancelled──▶ ended
/// ```
///
/// Attempts that fail while they start and are retried at once are started in a loop by the
/// thread that started the first (`retryNow`), not recursively: constant stack depth.
///
/// `Context` (the upstream, the subscriber, the policy) is held only while the run goes on, so
/// ending releases it even if the timer's task is still winding down.
///
/// Nothing is released here: the state changes only through ``transition(to:)``, which hands
/// the state it left to the storage as ``Released``, dropped after unlocking. The context holds
/// the user's closures and an attempt's cancel action its subscription or future; an object
/// they capture whose `deinit` cancels the run would take the lock again.
struct RetryStateMachine<Context: Sendable>: Sendable {
    fileprivate enum State {  // not private: `Released` carries one
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

    /// What an event let go of: the state it left, whose context and cancel action the new
    /// state may no longer hold. The storage drops it after unlocking.
    struct Released {
        private var state: State?

        init() {}

        fileprivate init(_ state: State) {
            self.state = state
        }
    }

    /// Moves to `next`, handing back the state left: the only place that changes the state.
    private mutating func transition(to next: State) -> Released {
        var left = next
        swap(&state, &left)
        return Released(left)
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
    mutating func register(_ number: Int, cancel: @escaping CancelAction) -> (registered: Bool, Released) {
        switch state {
        case .attempting(number, true, false, nil, let context):
            return (true, transition(to: .attempting(number: number, starting: true, retryNow: false, cancel: cancel, context)))
        case .ended(cancelled: true):
            return (false, Released())
        default:
            return (true, Released())  // it has ended already: there is nothing to cancel
        }
    }

    /// What the starter of an attempt does after its start returned.
    enum Started {
        case none
        /// The attempt failed while it started and is retried at once: start attempt `number`.
        case startNext(number: Int, Context)
    }

    /// The start of attempt `number` returned.
    mutating func attemptStarted(_ number: Int) -> (Started, Released) {
        switch state {
        case .attempting(number, true, false, let cancel, let context):
            return (.none, transition(to: .attempting(number: number, starting: false, retryNow: false, cancel: cancel, context)))
        case .attempting(number, true, true, _, let context):
            let released = transition(to: .attempting(number: number + 1, starting: true, retryNow: false, cancel: nil, context))
            return (.startNext(number: number + 1, context), released)
        default:
            // It failed while starting and the run went on (a backoff, maybe a later attempt
            // already), or the run ended.
            return (.none, Released())
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
    /// The failed attempt's cancel action is let go of in every case.
    mutating func attemptFailed(_ number: Int, retryAfter delay: Duration?) -> (Failed, Released) {
        switch state {
        case .attempting(number, let starting, false, _, let context):
            guard let delay else {
                return (.giveUp(context), transition(to: .ended(cancelled: false)))
            }
            if delay > .zero {
                return (.wait(number: number + 1, context), transition(to: .waiting(number: number + 1, timer: nil, context)))
            }
            if starting {
                return (.none, transition(to: .attempting(number: number, starting: true, retryNow: true, cancel: nil, context)))
            }
            let released = transition(to: .attempting(number: number + 1, starting: true, retryNow: false, cancel: nil, context))
            return (.start(number: number + 1, context), released)
        case .ended:
            return (.none, Released())  // cancelled meanwhile
        default:
            preconditionFailure("Internal inconsistency: attempt \(number) failed while \(state)")
        }
    }

    /// Attempt `number` ended the run (it succeeded, or ended in a way that is not retried).
    /// Returns whether to deliver its outcome (`false`: the run was cancelled first); the
    /// context and the attempt's cancel action are let go of.
    mutating func attemptEnded(_ number: Int) -> (deliver: Bool, Released) {
        switch state {
        case .attempting(number, _, false, _, _):
            return (true, transition(to: .ended(cancelled: false)))
        case .ended:
            return (false, Released())
        default:
            preconditionFailure("Internal inconsistency: attempt \(number) ended while \(state)")
        }
    }

    /// The backoff timer's task was created. Returns `false` if the run ended meanwhile: the
    /// caller cancels it.
    mutating func timerStarted(_ timer: Task<Void, Never>, before number: Int) -> (recorded: Bool, Released) {
        switch state {
        case .waiting(number, nil, let context):
            return (true, transition(to: .waiting(number: number, timer: timer, context)))
        case .ended:
            return (false, Released())
        default:
            return (true, Released())  // it has fired already
        }
    }

    /// The backoff before attempt `number` is over: start it (`nil`: the run was cancelled).
    mutating func timerFired(before number: Int) -> (Context?, Released) {
        switch state {
        case .waiting(number, _, let context):
            return (context, transition(to: .attempting(number: number, starting: true, retryNow: false, cancel: nil, context)))
        case .ended:
            return (nil, Released())
        default:
            preconditionFailure("Internal inconsistency: the backoff before attempt \(number) ended while \(state)")
        }
    }

    /// What cancelling leaves to do outside the lock.
    struct Teardown {
        var cancelAttempt: CancelAction?
        var timer: Task<Void, Never>?
        /// The context and the rest, dropped once the attempt and the timer are cancelled.
        var released = Released()
    }

    /// The run is cancelled: no further attempt starts.
    mutating func cancel() -> Teardown {
        switch state {
        case .attempting(_, _, _, let cancel, _):
            // An attempt that has not registered its cancel action yet learns at ``register``.
            return Teardown(cancelAttempt: cancel, timer: nil, released: transition(to: .ended(cancelled: true)))
        case .waiting(_, let timer, _):
            return Teardown(cancelAttempt: nil, timer: timer, released: transition(to: .ended(cancelled: true)))
        case .ended:
            return Teardown()
        }
    }
}
