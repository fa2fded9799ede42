/// The decisions of one ``FlowTimer``, made under its lock: what the operator armed (a deadline,
/// or none) and what the task is doing. Each event returns what to do once unlocked: start the
/// task, resume it, fire.
///
/// ```
/// unstarted ──arm(deadline)──▶ running(deadline) ◀──arm(deadline)── waiting
///                                   │   ▲                               ▲
///                                   │   └──────── woke, fired ──────────┤
///                                   └───────── nothing armed ───────────┘
/// any state ──end()──▶ ended
/// ```
///
/// Re-arming while the task sleeps only moves the deadline: on waking, the task sleeps again if
/// the armed deadline is later than the one it slept until. So `debounce`, which re-arms on every
/// value, costs a critical section per value, not a task or a cancellation. Deadlines must only
/// move later while the task sleeps (every operator's do); an earlier one would fire late.
@usableFromInline
struct FlowTimerStateMachine<Instant: InstantProtocol>: Sendable {
    /// Tells the operator a deadline is reached; the operator checks the clock itself.
    @usableFromInline
    typealias Fire = @Sendable () -> Void

    @usableFromInline
    enum State: Sendable {
        /// Nothing has been armed yet, and there is no task.
        case unstarted(Fire)
        /// The task is running or asleep on the clock; it fires at `deadline` if one is armed,
        /// and otherwise waits when it wakes.
        case running(deadline: Instant?, Fire)
        /// The task is suspended until a deadline is armed (or the timer ends, `nil`).
        case waiting(UnsafeContinuation<Instant?, Never>, Fire)
        /// The operator completed or was cancelled: the task ends, `fire` is released.
        case ended
    }

    @usableFromInline var state: State
    /// The task, once its starter has recorded it (the task may run before that).
    @usableFromInline var task: Task<Void, Never>?

    @inlinable
    init(fire: @escaping Fire) {
        state = .unstarted(fire)
    }

    /// What ``arm(_:)`` asks the timer to do.
    @usableFromInline
    enum ArmAction {
        case none
        /// Start the task: the first deadline.
        case startTask
        /// Wake the waiting task with the deadline.
        case resume(UnsafeContinuation<Instant?, Never>, Instant)
    }

    /// The operator wants to be told at `deadline`; `nil`: at no time.
    @inlinable
    mutating func arm(_ deadline: Instant?) -> ArmAction {
        switch state {
        case .unstarted(let fire):
            guard deadline != nil else { return .none }
            state = .running(deadline: deadline, fire)
            return .startTask
        case .running(_, let fire):
            state = .running(deadline: deadline, fire)
            return .none
        case .waiting(let continuation, let fire):
            guard let deadline else { return .none }
            state = .running(deadline: deadline, fire)
            return .resume(continuation, deadline)
        case .ended:
            return .none
        }
    }

    /// The starter created the task. Returns `false` when the timer ended meanwhile: the
    /// starter cancels it.
    @inlinable
    mutating func taskStarted(_ task: Task<Void, Never>) -> Bool {
        if case .ended = state { return false }
        self.task = task
        return true
    }

    /// What the task does next.
    @usableFromInline
    enum Next {
        case sleep(Instant)
        /// Nothing is armed: wait for a deadline.
        case wait
        /// The deadline it slept until is still armed: tell the operator.
        case fire(Fire)
        case end
    }

    /// The task asks what to do, after waking from a sleep until `wokeFrom` (or at its start,
    /// or after firing: `nil`).
    @inlinable
    mutating func next(wokeFrom: Instant?) -> Next {
        switch state {
        case .running(let deadline?, let fire):
            if let wokeFrom, deadline <= wokeFrom {
                state = .running(deadline: nil, fire)
                return .fire(fire)
            }
            return .sleep(deadline)
        case .running(nil, _):
            return .wait
        case .ended:
            return .end
        case .unstarted, .waiting:
            preconditionFailure("Internal inconsistency: a timer's task runs while it is \(state)")
        }
    }

    /// What the task does with the continuation it suspends on.
    @usableFromInline
    enum Wait {
        /// Stay suspended: ``arm(_:)`` or ``end()`` resumes it.
        case suspend
        /// Resume at once with this (a deadline armed meanwhile, or `nil`: ended).
        case resume(Instant?)
    }

    /// The task suspends on `continuation` until a deadline is armed.
    @inlinable
    mutating func wait(_ continuation: UnsafeContinuation<Instant?, Never>) -> Wait {
        switch state {
        case .running(nil, let fire):
            state = .waiting(continuation, fire)
            return .suspend
        case .running(let deadline?, _):
            return .resume(deadline)
        case .ended:
            return .resume(nil)
        case .unstarted, .waiting:
            preconditionFailure("Internal inconsistency: a timer's task waits while it is \(state)")
        }
    }

    /// What ``end()`` leaves to do outside the lock.
    @usableFromInline
    struct Teardown {
        @usableFromInline let task: Task<Void, Never>?
        @usableFromInline let waiting: UnsafeContinuation<Instant?, Never>?
        /// Released outside the lock: it holds the operator.
        @usableFromInline let fire: Fire?

        @inlinable
        init(task: Task<Void, Never>?, waiting: UnsafeContinuation<Instant?, Never>?, fire: Fire?) {
            self.task = task
            self.waiting = waiting
            self.fire = fire
        }
    }

    /// The operator completed or was cancelled: the task is cancelled (or resumed with `nil`)
    /// and ends; nothing fires any more.
    @inlinable
    mutating func end() -> Teardown {
        defer {
            state = .ended
            task = nil
        }
        switch state {
        case .unstarted(let fire):
            return Teardown(task: nil, waiting: nil, fire: fire)
        case .running(_, let fire):
            return Teardown(task: task, waiting: nil, fire: fire)
        case .waiting(let continuation, let fire):
            return Teardown(task: task, waiting: continuation, fire: fire)
        case .ended:
            return Teardown(task: nil, waiting: nil, fire: nil)
        }
    }
}
