// The one completer: what every completion block that AsyncBridge hands to an API captures, for
// a run of a `SharedFuture` and for a `withCompletion` call alike. A completion that comes on
// the starter's thread while the operation starts is kept in the starter's frame, which takes
// it without a second trip through the lock; one that comes on another thread meanwhile goes to
// the run at once when there is one (a `withCompletion` call has none yet: it is kept too);
// once the operation returned, the completer forwards to a run of a future. Only the completion
// blocks keep the completer once the operation returned, so releasing them uncalled ends the run
// with `completionNeverCalled`.

/// A run of a future, where a completer forwards its completion.
@usableFromInline
typealias FutureRun<Success: Sendable, Failure: Error> = (future: SharedFuture<Success, Failure>, generation: UInt64)

/// What one completer knows, under its mutex.
@usableFromInline
struct FutureCompleterState<Success: Sendable, Failure: Error> {
    @usableFromInline
    enum Phase {
        /// The operation is starting. A completion on the starter's thread is kept in the slot;
        /// one on another thread goes to the run, if the completer has one yet, else is kept.
        case starting
        /// The completion came while the operation was starting; its outcome is in the slot and
        /// the starter has not taken it.
        case completed
        /// The starter took the outcome.
        case taken
        /// The completion goes to the run.
        case forwarding
    }

    @usableFromInline var phase = Phase.starting
    /// The completion was called (or released uncalled): later calls are ignored.
    @usableFromInline var called = false
    /// The run the completion goes to, run `generation` of `future`: given when the completer is
    /// made (a run of a `SharedFuture`), or by the starter once the operation returned (a
    /// `withCompletion` call).
    @usableFromInline var future: SharedFuture<Success, Failure>?
    @usableFromInline var generation: UInt64
    @usableFromInline let reporter: MisuseReporter

    @inlinable
    init(run: FutureRun<Success, Failure>?, reporter: MisuseReporter) {
        self.future = run?.future
        self.generation = run?.generation ?? 0
        self.reporter = reporter
    }
}

/// The completer's fields outside its state, in the buffer's element beside the mutex, so that
/// touching them never overlaps an access to the state under the mutex: set when the completer
/// is made, but for `completedOnStarter`, which only the starter's thread writes and reads.
@usableFromInline
struct FutureCompleterElement {
    @usableFromInline var lock: LockElement
    /// The thread that runs the operation (and makes this completer).
    @usableFromInline let starter: ThreadIdentity
    /// Where a completion that comes while the operation is starting puts its outcome: memory
    /// in the starter's frame (a `FutureOutcome`), valid only while the operation starts.
    @usableFromInline let slot: UnsafeMutableRawPointer
    /// The completion was called on the starter's thread while the operation was starting: the
    /// starter takes the outcome, and the deinitialiser on that thread knows it was called,
    /// without the lock (that thread's program order orders every access).
    @usableFromInline var completedOnStarter = false

    @inlinable
    init(lock: LockElement, slot: UnsafeMutableRawPointer) {
        self.lock = lock
        self.starter = .current
        self.slot = slot
    }
}

/// The completion side of one run: what completion blocks capture. A second call is ignored and
/// reported; a completer released uncalled ends its run with
/// ``AsyncBridgeError/completionNeverCalled``.
///
/// A struct around the buffer so that it can be `Sendable` (`ManagedBuffer` is explicitly not)
/// and still be captured by a completion block as a single reference, with no box. Unchecked,
/// and sound: the state is touched only under the buffer's mutex, and of the element's fields
/// beside it, all are set before the completer is handed out but `completedOnStarter`, which
/// only the starter's thread touches.
///
/// ```swift
/// let started = FutureCompleter.start(reporter: reporter, run: nil, { api.load(completion: $0.resolve) },
///                                     forwardingTo: { (future, 1) }, then: { $0 })
/// ```
@usableFromInline
struct FutureCompleter<Success: Sendable, Failure: Error>: @unchecked Sendable {
    @usableFromInline let buffer: FutureCompleterBuffer<Success, Failure>

    @inlinable
    init(slot: UnsafeMutablePointer<FutureOutcome<Success, Failure>>, run: FutureRun<Success, Failure>?, reporter: MisuseReporter) {
        buffer = FutureCompleterBuffer.make(slot: slot, run: run, reporter: reporter)
    }

    /// How the operation's start went.
    @usableFromInline
    enum Started {
        /// The completion came while the operation was starting, and is the starter's to pass on.
        case completed(FutureOutcome<Success, Failure>)
        /// The operation returned without completing, or its completion went to this run.
        case forwarding(SharedFuture<Success, Failure>)
    }

    /// Runs the operation `start` with a fresh completer, whose misuse goes to `reporter`. A
    /// completion on another thread while it starts goes to `run`, if given; once the operation
    /// returned without completing, its completion goes to `run`, or else to the run that
    /// `target` names (made under the completer's lock, so that a completion cannot fall between
    /// the check and the hand-over). Returns what `then` makes of that, which runs while the completer is still
    /// held here: a dropped completion block cannot end the run before `then` has recorded the
    /// start.
    ///
    /// The completer is released when this returns, so that from then on only the completion
    /// blocks keep it, and releasing them uncalled ends the run.
    @inlinable @inline(__always)
    static func start<Result>(
        reporter: MisuseReporter,
        run: FutureRun<Success, Failure>?,
        _ start: (FutureCompleter) -> Void,
        forwardingTo target: () -> FutureRun<Success, Failure>,
        then: (Started) -> Result
    ) -> Result {
        withUnsafeTemporaryAllocation(of: FutureOutcome<Success, Failure>.self, capacity: 1) { slot in
            let completer = FutureCompleter(slot: slot.baseAddress.unsafelyUnwrapped, run: run, reporter: reporter)
            start(completer)
            return withExtendedLifetime(completer) { then(completer.started(forwardingTo: target)) }
        }
    }

    /// The operation returned: the outcome if the completion came while it was starting and is
    /// the starter's to pass on, otherwise the future it goes (or went) to.
    @inlinable
    func started(forwardingTo target: () -> FutureRun<Success, Failure>) -> Started {
        if buffer.completedOnStarter {  // this thread's own write: no lock needed
            return .completed(buffer.slot.move())
        }
        return buffer.withLock { state -> Started in
            switch state.phase {
            case .completed:
                state.phase = .taken
                return .completed(buffer.slot.move())
            case .forwarding:
                return .forwarding(state.future.unsafelyUnwrapped)
            case .starting, .taken:
                if state.future == nil {  // a run given when the completer was made stays
                    (state.future, state.generation) = target()
                }
                state.phase = .forwarding
                return .forwarding(state.future.unsafelyUnwrapped)
            }
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
        switch buffer.withLock({ $0.call(outcome, buffer) }) {
        case .kept: break
        case .again(let reporter): reporter.report(.completionCalledMoreThanOnce, failure: Failure.self)
        case .forward(let run, _): run.future.completeRun(run.generation, outcome)
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
        /// The first call, which goes to a run.
        case forward(FutureRun<Success, Failure>, MisuseReporter)
    }

    /// Records a call of the completion.
    @inlinable
    mutating func call(_ outcome: FutureOutcome<Success, Failure>, _ buffer: FutureCompleterBuffer<Success, Failure>) -> Call {
        if called { return .again(reporter) }
        called = true
        switch phase {
        case .starting:
            let onStarter = buffer.starter.isCurrent
            if let future, !onStarter {
                phase = .forwarding
                return .forward((future, generation), reporter)
            }
            buffer.slot.initialize(to: outcome)
            phase = .completed
            if onStarter { buffer.completedOnStarter = true }
            return .kept
        case .forwarding:
            return .forward((future.unsafelyUnwrapped, generation), reporter)
        case .completed, .taken:
            preconditionFailure("Internal inconsistency: a completion was kept before it was called")
        }
    }
}

/// The storage behind ``FutureCompleter``: its state as the header and a
/// ``FutureCompleterElement`` (the mutex, as in a ``LockBuffer``, and the fields outside the
/// state) as the single element, with a deinitialiser of its own.
@usableFromInline
final class FutureCompleterBuffer<Success: Sendable, Failure: Error>:
    ManagedBuffer<FutureCompleterState<Success, Failure>, FutureCompleterElement>
{
    @usableFromInline typealias State = FutureCompleterState<Success, Failure>

    @inlinable
    static func make(
        slot: UnsafeMutablePointer<FutureOutcome<Success, Failure>>,
        run: FutureRun<Success, Failure>?,
        reporter: MisuseReporter
    ) -> FutureCompleterBuffer {
        let buffer = create(minimumCapacity: 1) { _ in State(run: run, reporter: reporter) }
        buffer.withUnsafeMutablePointerToElements { element in
            element.initialize(to: FutureCompleterElement(lock: lockElementToPlace(), slot: UnsafeMutableRawPointer(slot)))
            initializeMutex(lockElementMutex(element.pointer(to: \.lock)!))
        }
        return unsafeDowncast(buffer, to: FutureCompleterBuffer.self)
    }

    @inlinable
    var element: UnsafeMutablePointer<FutureCompleterElement> {
        withUnsafeMutablePointerToElements { $0 }
    }

    @inlinable
    var starter: ThreadIdentity { element.pointer(to: \.starter)!.pointee }

    @inlinable
    var slot: UnsafeMutablePointer<FutureOutcome<Success, Failure>> {
        element.pointer(to: \.slot)!.pointee.assumingMemoryBound(to: FutureOutcome<Success, Failure>.self)
    }

    /// Only on the starter's thread.
    @inlinable
    var completedOnStarter: Bool {
        get { element.pointer(to: \.completedOnStarter)!.pointee }
        set { element.pointer(to: \.completedOnStarter)!.pointee = newValue }
    }

    @inlinable
    func withLock<Result>(_ body: (inout State) -> Result) -> Result {
        withUnsafeMutablePointers { state, element in
            withLockedElement(element.pointer(to: \.lock)!, state, body)
        }
    }

    // Compiled unspecialised: the common case (called on the starter's thread while starting,
    // and released there) reads two fields of the element, without the lock.
    @inlinable
    deinit {
        let wasCalled = starter.isCurrent && completedOnStarter ? true : withLock { $0.called }
        if !wasCalled { completionNeverCalled() }
        destroyLockElement(element.pointer(to: \.lock)!)
    }

    /// The completion was released without being called: the run ends with
    /// ``AsyncBridgeError/completionNeverCalled``, reported before its consumers are told,
    /// unless it had ended already.
    @usableFromInline
    func completionNeverCalled() {
        let outcome = FutureOutcome<Success, Failure>.broken(.completionNeverCalled)
        guard case .forward(let run, let reporter) = withLock({ $0.call(outcome, self) }) else {
            preconditionFailure("Internal inconsistency: a completer was released while its operation was starting")
        }
        guard let completion = run.future.endRun(run.generation, outcome) else { return }
        reporter.report(.completionNeverCalled, failure: Failure.self)
        completion.consumers?.deliver(outcome)
    }
}
