// The completion side of one `withCompletion` call. A completion while the operation starts
// is kept in the caller's frame (one allocation, no `SharedFuture`); otherwise the caller waits
// on a running `SharedFuture` the completer forwards to. Only the completion blocks keep the
// completer once the operation returned, so releasing them uncalled ends the call with
// `completionNeverCalled`.

/// What one call's completer knows, under its mutex.
@usableFromInline
struct CallCompleterState<Success: Sendable, Failure: Error> {
    @usableFromInline
    enum Phase {
        /// The operation is starting: a completion now is kept for the caller.
        case starting
        /// The completion came while the operation was starting; its outcome is in `slot` and
        /// the caller has not taken it.
        case completed
        /// The caller took the outcome.
        case taken
        /// The operation returned without completing: the caller waits on this future (run 1,
        /// consumer 1), which gets the completion.
        case forwarding(SharedFuture<Success, Failure>)
    }

    @usableFromInline var phase = Phase.starting
    /// Where a completion that comes while the operation is starting puts its outcome: memory
    /// in the caller's frame, valid only in phase `starting` (and read in `completed`).
    ///
    /// Not the outcome itself: with only fixed-size fields, the buffer's unspecialised
    /// deinitialiser needs no generic metadata lookup.
    @usableFromInline let slot: UnsafeMutablePointer<FutureOutcome<Success, Failure>>
    /// The completion was called (or released uncalled): later calls are ignored.
    @usableFromInline var called = false
    @usableFromInline let reporter: MisuseReporter

    @inlinable
    init(slot: UnsafeMutablePointer<FutureOutcome<Success, Failure>>, reporter: MisuseReporter) {
        self.slot = slot
        self.reporter = reporter
    }
}

/// The completion side of one `withCompletion` call: the state and its mutex in one allocation.
///
/// A struct around the buffer so that it can be `Sendable` (`ManagedBuffer` is explicitly not)
/// and still be captured by a completion block as a single reference, with no box.
@usableFromInline
struct CallCompleter<Success: Sendable, Failure: Error>: @unchecked Sendable {
    @usableFromInline let buffer: CallCompleterBuffer<Success, Failure>

    @inlinable
    init(slot: UnsafeMutablePointer<FutureOutcome<Success, Failure>>, reporter: MisuseReporter) {
        buffer = CallCompleterBuffer.make(slot: slot, reporter: reporter)
    }

    /// How a call went once its operation returned.
    @usableFromInline
    enum Arrival {
        /// The caller has its outcome (`nil`: its task was cancelled) without waiting.
        case served(FutureOutcome<Success, Failure>?)
        /// The caller waits on this future, as its consumer 1 of run 1.
        case waiting(SharedFuture<Success, Failure>)
    }

    /// Runs the operation `start` with a fresh completer, whose misuse goes to `reporter`, and
    /// decides whether the caller waits.
    ///
    /// The completer is released when this returns, so that from then on only the completion
    /// blocks keep it, and releasing them uncalled ends the call.
    @inlinable
    static func start(reporter: MisuseReporter, _ start: (CallCompleter) -> Void) -> Arrival {
        withUnsafeTemporaryAllocation(of: FutureOutcome<Success, Failure>.self, capacity: 1) { slot in
            let completer = CallCompleter(slot: slot.baseAddress.unsafelyUnwrapped, reporter: reporter)
            start(completer)
            return withExtendedLifetime(completer) { completer.started() }
        }
    }

    /// The operation returned. A completion that came while it was starting is served;
    /// otherwise the caller gets a running future to wait on, unless its task was cancelled
    /// while the operation was starting: then it leaves at once (`.served(nil)`).
    ///
    /// The future is made under the lock, so a completion cannot fall between the check and the
    /// hand-over; a same-thread completion is read under the lock too, to keep the thread
    /// sanitizer quiet.
    @inlinable
    func started() -> Arrival {
        let arrival = buffer.withLock { state -> Arrival in
            if case .completed = state.phase { return .served(state.takeOutcome()) }
            let future = SharedFuture<Success, Failure>(runningFirstRun: state.reporter)
            state.phase = .forwarding(future)
            return .waiting(future)
        }
        guard case .waiting(let future) = arrival, Task.isCancelled else { return arrival }
        return .served(future.firstConsumerLeavesFirstRun())
    }

    /// Delivers a `Result`: what completion blocks of every shape end up calling. A second call
    /// is ignored and reported.
    @inlinable
    func resolve(_ result: Result<Success, Failure>) {
        let outcome = FutureOutcome(result)
        switch buffer.withLock({ $0.call(outcome) }) {
        case .kept: break
        case .again(let reporter): reporter.report(.completionCalledMoreThanOnce, failure: Failure.self)
        case .forward(let future, _): future.completeFirstRun(outcome)
        }
    }
}

extension CallCompleterState {
    /// What a call of the completion is to do once the lock is released.
    @usableFromInline
    enum Call {
        /// The outcome is kept for the caller.
        case kept
        /// A later call.
        case again(MisuseReporter)
        /// The first call after the operation returned: the outcome goes to the future.
        case forward(SharedFuture<Success, Failure>, MisuseReporter)
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
            return .kept
        case .forwarding(let future):
            return .forward(future, reporter)
        case .completed, .taken:
            preconditionFailure("Internal inconsistency: a completion was kept before it was called")
        }
    }

    /// The outcome kept while the operation was starting, moved out to the caller.
    @inlinable
    mutating func takeOutcome() -> FutureOutcome<Success, Failure> {
        guard case .completed = phase else {
            preconditionFailure("Internal inconsistency: no outcome was kept")
        }
        phase = .taken
        return slot.move()
    }
}

/// The storage behind ``CallCompleter``: the layout of ``LockBuffer`` (the state as the header,
/// a ``LockElement`` as the single element, counted by a ``LiveObjectScope`` in debug builds),
/// with a deinitialiser of its own.
@usableFromInline
final class CallCompleterBuffer<Success: Sendable, Failure: Error>:
    ManagedBuffer<CallCompleterState<Success, Failure>, LockElement>
{
    @usableFromInline typealias State = CallCompleterState<Success, Failure>

    @inlinable
    static func make(slot: UnsafeMutablePointer<FutureOutcome<Success, Failure>>, reporter: MisuseReporter) -> CallCompleterBuffer {
        let buffer = create(minimumCapacity: 1) { _ in State(slot: slot, reporter: reporter) }
        buffer.withUnsafeMutablePointerToElements { initializeLockElement($0) }
        return unsafeDowncast(buffer, to: CallCompleterBuffer.self)
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

    @inlinable
    deinit {
        let wasCalled = withLock { $0.called }
        if !wasCalled { completionNeverCalled() }
        withUnsafeMutablePointerToElements { destroyLockElement($0) }
    }

    /// The completion was released without being called: the caller, waiting on the future,
    /// gets ``AsyncBridgeError/completionNeverCalled``, reported, unless it had left.
    @usableFromInline
    func completionNeverCalled() {
        let outcome = FutureOutcome<Success, Failure>.broken(.completionNeverCalled)
        guard case .forward(let future, let reporter) = withLock({ $0.call(outcome) }) else {
            preconditionFailure("Internal inconsistency: a completer was released while its operation was starting")
        }
        if future.completeFirstRun(outcome) { reporter.report(.completionNeverCalled, failure: Failure.self) }
    }
}
