// The one completer: what every completion block that AsyncBridge hands to an API captures, for
// a run of a `SharedFuture` and for a `withCompletion` call alike. A completion that comes
// while the operation starts is kept in the starter's frame (no future touched, no lock when it
// comes on the starter's thread); once the operation returned, the completer forwards to a run
// of a future. Only the completion blocks keep the completer once the operation returned, so
// releasing them uncalled ends the run with `completionNeverCalled`.

/// What one completer knows, under its mutex (``LockElement``, as in a ``LockBuffer``).
@usableFromInline
struct FutureCompleterState<Success: Sendable, Failure: Error> {
    @usableFromInline
    enum Phase {
        /// The operation is starting: a completion now is kept for the starter.
        case starting
        /// The completion came while the operation was starting; its outcome is in `slot` and
        /// the starter has not taken it.
        case completed
        /// The starter took the outcome.
        case taken
        /// The operation returned without completing: the completion goes to run `generation`
        /// of `future`.
        case forwarding(SharedFuture<Success, Failure>, generation: UInt64)
    }

    @usableFromInline var phase = Phase.starting
    /// Where a completion that comes while the operation is starting puts its outcome: memory
    /// in the starter's frame, valid only in phase `starting` (and read in `completed`).
    ///
    /// Not the outcome itself: with only fixed-size fields, the buffer's unspecialised
    /// deinitialiser needs no generic metadata lookup.
    @usableFromInline let slot: UnsafeMutablePointer<FutureOutcome<Success, Failure>>
    /// The completion was called (or released uncalled): later calls are ignored.
    @usableFromInline var called = false
    @usableFromInline let reporter: MisuseReporter
    /// The thread that runs the operation (and makes this completer).
    @usableFromInline let starter: ThreadIdentity
    /// The completion was called on the starter's thread while the operation was starting.
    /// Written (under the mutex) and read only on that thread, whose program order orders every
    /// access: the starter takes the outcome, and the deinitialiser on that thread reads
    /// `called`, without the mutex.
    @usableFromInline var completedOnStarter = false

    @inlinable
    init(slot: UnsafeMutablePointer<FutureOutcome<Success, Failure>>, reporter: MisuseReporter) {
        self.slot = slot
        self.reporter = reporter
        self.starter = .current
    }
}

/// The completion side of one run: what completion blocks capture. A second call is ignored and
/// reported; a completer released uncalled ends its run with
/// ``AsyncBridgeError/completionNeverCalled``.
///
/// A struct around the buffer so that it can be `Sendable` (`ManagedBuffer` is explicitly not)
/// and still be captured by a completion block as a single reference, with no box.
///
/// ```swift
/// let started = FutureCompleter.start(reporter: reporter, { api.load(completion: $0.resolve) },
///                                     forwardingTo: { (future, 1) }, then: { $0 })
/// ```
@usableFromInline
struct FutureCompleter<Success: Sendable, Failure: Error>: @unchecked Sendable {
    @usableFromInline let buffer: FutureCompleterBuffer<Success, Failure>

    @inlinable
    init(slot: UnsafeMutablePointer<FutureOutcome<Success, Failure>>, reporter: MisuseReporter) {
        buffer = FutureCompleterBuffer.make(slot: slot, reporter: reporter)
    }

    /// How the operation's start went.
    @usableFromInline
    enum Started {
        /// The completion came while the operation was starting.
        case completed(FutureOutcome<Success, Failure>)
        /// The operation returned without completing: its completion goes to this future.
        case forwarding(SharedFuture<Success, Failure>)
    }

    /// Runs the operation `start` with a fresh completer, whose misuse goes to `reporter`. If
    /// the operation returns without having completed, its completion goes to the run that
    /// `target` names (made under the completer's lock, so that a completion cannot fall
    /// between the check and the hand-over). Returns what `then` makes of that, which runs
    /// while the completer is still held here: a dropped completion block cannot end the run
    /// before `then` has recorded the start.
    ///
    /// The completer is released when this returns, so that from then on only the completion
    /// blocks keep it, and releasing them uncalled ends the run.
    @inlinable @inline(__always)
    static func start<Result>(
        reporter: MisuseReporter,
        _ start: (FutureCompleter) -> Void,
        forwardingTo target: () -> (SharedFuture<Success, Failure>, generation: UInt64),
        then: (Started) -> Result
    ) -> Result {
        withUnsafeTemporaryAllocation(of: FutureOutcome<Success, Failure>.self, capacity: 1) { slot in
            let completer = FutureCompleter(slot: slot.baseAddress.unsafelyUnwrapped, reporter: reporter)
            start(completer)
            return withExtendedLifetime(completer) { then(completer.started(forwardingTo: target)) }
        }
    }

    /// The operation returned: the outcome if the completion came while it was starting,
    /// otherwise the future it goes to from now on.
    @inlinable
    func started(forwardingTo target: () -> (SharedFuture<Success, Failure>, generation: UInt64)) -> Started {
        let state = buffer.statePointer
        // Called on this thread, which wrote the flag and the slot: no lock needed.
        if state.pointee.completedOnStarter {
            state.pointee.phase = .taken
            return .completed(state.pointee.slot.move())
        }
        return buffer.withLock { state -> Started in
            if case .completed = state.phase {
                state.phase = .taken
                return .completed(state.slot.move())
            }
            let (future, generation) = target()
            state.phase = .forwarding(future, generation: generation)
            return .forwarding(future)
        }
    }

    /// Delivers a `Result`: what completion blocks of every shape end up calling.
    @inlinable
    func resolve(_ result: Result<Success, Failure>) {
        complete(FutureOutcome(result))
    }

    /// Delivers the run's outcome; a second call is ignored and reported.
    @inlinable
    func complete(_ outcome: FutureOutcome<Success, Failure>) {
        switch buffer.withLock({ $0.call(outcome) }) {
        case .kept: break
        case .again(let reporter): reporter.report(.completionCalledMoreThanOnce, failure: Failure.self)
        case .forward(let future, let generation, _): future.completeRun(generation, outcome)
        }
    }
}

extension FutureCompleterState {
    /// What a call of the completion is to do once the lock is released.
    @usableFromInline
    enum Call {
        /// The outcome is kept for the starter.
        case kept
        /// A later call.
        case again(MisuseReporter)
        /// The first call after the operation returned: the outcome goes to the run.
        case forward(SharedFuture<Success, Failure>, generation: UInt64, MisuseReporter)
    }

    /// Records a call of the completion.
    @inlinable
    mutating func call(_ outcome: FutureOutcome<Success, Failure>) -> Call {
        if called { return .again(reporter) }
        called = true
        switch phase {
        case .starting:
            slot.initialize(to: outcome)
            phase = .completed
            if starter.isCurrent { completedOnStarter = true }
            return .kept
        case .forwarding(let future, let generation):
            return .forward(future, generation: generation, reporter)
        case .completed, .taken:
            preconditionFailure("Internal inconsistency: a completion was kept before it was called")
        }
    }
}

/// The storage behind ``FutureCompleter``: the layout of ``LockBuffer`` (the state as the
/// header, a ``LockElement`` as the single element), with a deinitialiser of its own.
@usableFromInline
final class FutureCompleterBuffer<Success: Sendable, Failure: Error>:
    ManagedBuffer<FutureCompleterState<Success, Failure>, LockElement>
{
    @usableFromInline typealias State = FutureCompleterState<Success, Failure>

    @inlinable
    static func make(slot: UnsafeMutablePointer<FutureOutcome<Success, Failure>>, reporter: MisuseReporter) -> FutureCompleterBuffer {
        let buffer = create(minimumCapacity: 1) { _ in State(slot: slot, reporter: reporter) }
        buffer.withUnsafeMutablePointerToElements { initializeLockElement($0) }
        return unsafeDowncast(buffer, to: FutureCompleterBuffer.self)
    }

    @inlinable
    var statePointer: UnsafeMutablePointer<State> {
        withUnsafeMutablePointerToHeader { $0 }
    }

    @inlinable
    func withLock<Result>(_ body: (inout State) -> Result) -> Result {
        withUnsafeMutablePointers { state, element in
            let lock = LockMutex(lockElementMutex(element))
            lock.lock()
            defer { lock.unlock() }
            return body(&state.pointee)
        }
    }

    // Compiled unspecialised: the common case (called on the starter's thread while starting)
    // reads two fields, without the lock.
    @inlinable
    deinit {
        let state = statePointer
        let wasCalled = state.pointee.starter.isCurrent && state.pointee.completedOnStarter ? true : withLock { $0.called }
        if !wasCalled { completionNeverCalled() }
        withUnsafeMutablePointerToElements { destroyLockElement($0) }
    }

    /// The completion was released without being called: the run ends with
    /// ``AsyncBridgeError/completionNeverCalled``, reported, unless it had ended already.
    @usableFromInline
    func completionNeverCalled() {
        let outcome = FutureOutcome<Success, Failure>.broken(.completionNeverCalled)
        guard case .forward(let future, let generation, let reporter) = withLock({ $0.call(outcome) }) else {
            preconditionFailure("Internal inconsistency: a completer was released while its operation was starting")
        }
        if future.completeRun(generation, outcome) { reporter.report(.completionNeverCalled, failure: Failure.self) }
    }
}
