// The one completer: what every completion block that AsyncBridge hands to an API captures, for
// a run of a `SharedFuture` and for a `withCompletion` call alike. Its state is under a mutex of
// its own. A completer made for a run holds the run until its first call, which takes the run
// out and ends it under the future's lock (so a block the API keeps afterwards holds nothing of
// the future); a `withCompletion` call's hands the outcome to a `CompletionWaiter` made only if
// the operation returns without completing. A completion that comes on the
// starter's thread while the operation starts also goes to the starter's frame, where the
// starter takes it without the lock. Only the completion blocks keep the completer once the
// operation returned, so releasing them uncalled ends the run with `completionNeverCalled`.

/// A run of a future, where a completer forwards its completion.
@usableFromInline
struct FutureRun<Success: Sendable, Failure: Error> {
    @usableFromInline let future: SharedFuture<Success, Failure>
    @usableFromInline let generation: UInt64

    @inlinable
    init(_ future: SharedFuture<Success, Failure>, _ generation: UInt64) {
        self.future = future
        self.generation = generation
    }

    /// Ends the run with `outcome` (see ``SharedFuture/endRun(_:_:)``).
    @inlinable @inline(__always)
    func end(_ outcome: FutureOutcome<Success, Failure>) -> FutureStateMachine<Success, Failure>.Completion? {
        future.endRun(generation, outcome)
    }
}

/// What one completer knows of where its completion goes, under its mutex.
@usableFromInline
struct FutureCompleterState<Success: Sendable, Failure: Error> {
    /// The run the completion goes to, for a completer made for one, until the first call (or
    /// the release uncalled) takes it.
    @usableFromInline var run: FutureRun<Success, Failure>?
    /// Where a `withCompletion` call's completion goes once its operation returned without
    /// completing (until then a completion is kept in the slot).
    @usableFromInline var waiter: CompletionWaiter<Success, Failure>?
    @usableFromInline let reporter: MisuseReporter

    @inlinable
    init(run: FutureRun<Success, Failure>?, reporter: MisuseReporter) {
        self.run = run
        self.reporter = reporter
    }
}

/// The completer's fields that do not depend on its generic parameters, in the buffer's element
/// beside the mutex, so that its deinitialiser (compiled unspecialised) reads them without type
/// metadata: set when the completer is made, but for `called`, under `lock`, and `starting`
/// and `completedOnStarter`, which only the starter's thread writes and reads (that thread's
/// program order orders every access).
@usableFromInline
struct FutureCompleterElement {
    /// The completer's mutex, which guards its state and `called`.
    @usableFromInline var lock: LockElement
    /// Made for a run of a future (not for a `withCompletion` call).
    @usableFromInline let madeForRun: Bool
    /// The completion was called (or released uncalled): later calls are ignored.
    @usableFromInline var called = false
    /// The thread that runs the operation (and makes this completer).
    @usableFromInline let starter: ThreadIdentity
    /// Where a completion that comes on the starter's thread while the operation starts puts
    /// its outcome: memory in the starter's frame (a `FutureOutcome`), valid only meanwhile.
    @usableFromInline let slot: UnsafeMutableRawPointer
    /// The operation has not returned yet.
    @usableFromInline var starting = true
    /// The completion was called on the starter's thread while the operation was starting: the
    /// starter takes the outcome from the slot, and the deinitialiser on that thread knows it
    /// was called, without a lock.
    @usableFromInline var completedOnStarter = false

    @inlinable
    init(lock: LockElement, madeForRun: Bool, slot: UnsafeMutableRawPointer) {
        self.lock = lock
        self.madeForRun = madeForRun
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
/// and sound: `called` and the state are touched only under the buffer's mutex, or when made;
/// of the element's other fields, all are set before the completer is handed out but
/// `starting` and `completedOnStarter`, which only the starter's thread touches.
///
/// ```swift
/// let started = FutureCompleter.start(reporter: reporter, { api.load(completion: $0.resolve) }) { $0 }
/// ```
@usableFromInline
struct FutureCompleter<Success: Sendable, Failure: Error>: @unchecked Sendable {
    @usableFromInline let buffer: FutureCompleterBuffer<Success, Failure>

    @inlinable
    init(slot: UnsafeMutablePointer<FutureOutcome<Success, Failure>>, run: FutureRun<Success, Failure>?, reporter: MisuseReporter) {
        buffer = FutureCompleterBuffer.make(slot: slot, run: run, reporter: reporter)
    }

    /// How a `withCompletion` call's operation started.
    @usableFromInline
    enum Started {
        /// The completion came while the operation was starting: it is the starter's to pass on.
        case completed(FutureOutcome<Success, Failure>)
        /// The operation returned without completing: the completion goes to this waiter.
        case waiting(CompletionWaiter<Success, Failure>)
    }

    /// Runs the operation `start` for `run` with a fresh completer, whose misuse goes to
    /// `reporter`; a completion ends the run at once. Returns what `then` makes of the start:
    /// of the outcome if the completion came on this thread while the operation started (the
    /// run has ended with it), else of `nil`. `then` runs while the completer is still held
    /// here: a dropped completion block cannot end the run before `then` has recorded the start.
    ///
    /// The completer is released when this returns, so that from then on only the completion
    /// blocks keep it, and releasing them uncalled ends the run.
    @inlinable @inline(__always)
    static func start<Result>(
        reporter: MisuseReporter,
        run: FutureRun<Success, Failure>,
        _ start: (FutureCompleter) -> Void,
        then: (FutureOutcome<Success, Failure>?) -> Result
    ) -> Result {
        withFresh(reporter: reporter, run: run, start) { completer in
            then(completer.started())
        }
    }

    /// Runs the operation `start` of a `withCompletion` call with a fresh completer, whose misuse
    /// goes to `reporter`. A completion that comes while it starts is kept for the caller; once
    /// the operation returned without completing, the completion goes to a
    /// ``CompletionWaiter``. Otherwise as ``start(reporter:run:_:then:)``.
    @inlinable @inline(__always)
    static func start<Result>(
        reporter: MisuseReporter,
        _ start: (FutureCompleter) -> Void,
        then: (Started) -> Result
    ) -> Result {
        withFresh(reporter: reporter, run: nil, start) { completer in
            if let outcome = completer.started() { return then(.completed(outcome)) }
            return then(completer.forward())
        }
    }

    /// Runs `start` with a fresh completer, then `body` while the completer is still held.
    @inlinable @inline(__always)
    static func withFresh<Result>(
        reporter: MisuseReporter,
        run: FutureRun<Success, Failure>?,
        _ start: (FutureCompleter) -> Void,
        _ body: (FutureCompleter) -> Result
    ) -> Result {
        withUnsafeTemporaryAllocation(of: FutureOutcome<Success, Failure>.self, capacity: 1) { slot in
            let completer = FutureCompleter(slot: slot.baseAddress.unsafelyUnwrapped, run: run, reporter: reporter)
            start(completer)
            return withExtendedLifetime(completer) { body(completer) }
        }
    }

    /// The operation returned: the outcome if the completion came on this thread while it was
    /// starting (for a run, the run has ended with it), else `nil`.
    @inlinable
    func started() -> FutureOutcome<Success, Failure>? {
        buffer.starting = false  // the starter's own fields: no lock needed
        return buffer.completedOnStarter ? buffer.slot.move() : nil
    }

    /// A `withCompletion` call's operation returned without a completion on this thread: the
    /// outcome if one came on another thread meanwhile, else the waiter where the completion
    /// goes from now on (made under the lock, so that a completion cannot fall between the
    /// check and the hand-over).
    @inlinable
    func forward() -> Started {
        buffer.withLock { state -> Started in
            if buffer.called { return .completed(buffer.slot.move()) }
            let waiter = CompletionWaiter<Success, Failure>()
            state.waiter = waiter
            return .waiting(waiter)
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
        let onStarter = buffer.starter.isCurrent && buffer.starting
        if buffer.madeForRun {
            if !buffer.callEndingRun(outcome, onStarter: onStarter) {
                buffer.reporter.report(.completionCalledMoreThanOnce, failure: Failure.self)
            }
            return
        }
        switch buffer.withLock({ $0.call(outcome, buffer, onStarter: onStarter) }) {
        case .kept: break
        case .again(let reporter): reporter.report(.completionCalledMoreThanOnce, failure: Failure.self)
        case .forward(let waiter): waiter.complete(outcome)
        }
    }
}

extension FutureCompleterState {
    /// What a call of a `withCompletion` call's completion is to do once the lock is released.
    @usableFromInline
    enum Call {
        /// The first call, before the operation returned: the outcome is kept for the starter.
        case kept
        /// A later call.
        case again(MisuseReporter)
        /// The first call once the operation returned: it goes to the waiter.
        case forward(CompletionWaiter<Success, Failure>)
    }

    /// Records a call of a `withCompletion` call's completion: forwarded once the starter made
    /// the waiter, else kept in the slot (`onStarter`: a call on the starter's thread while the
    /// operation starts, which the starter takes without the lock).
    @inlinable
    mutating func call(
        _ outcome: FutureOutcome<Success, Failure>,
        _ buffer: FutureCompleterBuffer<Success, Failure>,
        onStarter: Bool
    ) -> Call {
        if buffer.called { return .again(reporter) }
        buffer.called = true
        if let waiter { return .forward(waiter) }
        buffer.keepForStarter(outcome, onStarter: onStarter)
        return .kept
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
        let madeForRun = run != nil
        let buffer = create(minimumCapacity: 1) { _ in State(run: run, reporter: reporter) }
        buffer.withUnsafeMutablePointerToElements { element in
            element.initialize(
                to: FutureCompleterElement(lock: lockElementToPlace(), madeForRun: madeForRun, slot: UnsafeMutableRawPointer(slot))
            )
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

    /// The completer was made for a run of a future, not for a `withCompletion` call.
    @inlinable
    var madeForRun: Bool { element.pointer(to: \.madeForRun)!.pointee }

    @inlinable
    var slot: UnsafeMutablePointer<FutureOutcome<Success, Failure>> {
        element.pointer(to: \.slot)!.pointee.assumingMemoryBound(to: FutureOutcome<Success, Failure>.self)
    }

    /// Only under the mutex.
    @inlinable
    var called: Bool {
        get { element.pointer(to: \.called)!.pointee }
        set { element.pointer(to: \.called)!.pointee = newValue }
    }

    /// Only on the starter's thread.
    @inlinable
    var starting: Bool {
        get { element.pointer(to: \.starting)!.pointee }
        set { element.pointer(to: \.starting)!.pointee = newValue }
    }

    /// Only on the starter's thread.
    @inlinable
    var completedOnStarter: Bool {
        get { element.pointer(to: \.completedOnStarter)!.pointee }
        set { element.pointer(to: \.completedOnStarter)!.pointee = newValue }
    }

    /// Puts the outcome of the first call in the slot for the starter; `onStarter`: the call is
    /// on the starter's thread, while the operation starts.
    @inlinable
    func keepForStarter(_ outcome: FutureOutcome<Success, Failure>, onStarter: Bool) {
        slot.initialize(to: outcome)
        if onStarter { completedOnStarter = true }
    }

    /// The state under the buffer's mutex.
    @inlinable
    func withLock<Result>(_ body: (inout State) -> Result) -> Result {
        withUnsafeMutablePointers { state, element in
            withLockedElement(element.pointer(to: \.lock)!, state, body)
        }
    }

    /// A call of the completion of a completer made for a run: the first ends the run and tells
    /// its consumers, and, `onStarter`, keeps the outcome for the starter. Returns whether it
    /// was the first.
    @inlinable @inline(__always)
    func callEndingRun(_ outcome: FutureOutcome<Success, Failure>, onStarter: Bool) -> Bool {
        guard let run = takeRunIfFirst() else { return false }
        run.end(outcome)?.consumers?.deliver(outcome)
        if onStarter { keepForStarter(outcome, onStarter: true) }
        return true  // `run`, and with it the future, released here, unlocked
    }

    /// Records a call of the completion of a completer made for a run: the first takes the run,
    /// so that the completer holds nothing of the future from then on; `nil` for a later call.
    @inlinable @inline(__always)
    func takeRunIfFirst() -> FutureRun<Success, Failure>? {
        withLock { state in
            if called { return nil }
            called = true
            return state.run.take()
        }
    }

    /// Set when made: read without a lock.
    @inlinable
    var reporter: MisuseReporter {
        withUnsafeMutablePointerToHeader { $0.pointer(to: \.reporter)!.pointee }
    }

    // Compiled unspecialised, so it reads only the element: without a lock when the completion
    // came on the starter's thread while starting and the completer is released there (the
    // common case), else `called` under the mutex.
    @inlinable
    deinit {
        if !(starter.isCurrent && completedOnStarter) && !calledUnderLock { completionNeverCalled() }
        destroyLockElement(element.pointer(to: \.lock)!)
    }

    /// Whether the completion was called, read under the mutex without generic metadata.
    @inlinable
    var calledUnderLock: Bool {
        let mutex = LockMutex(lockElementMutex(element.pointer(to: \.lock)!))
        mutex.lock()
        defer { mutex.unlock() }
        return called
    }

    /// The completer is released: unless the completion was called, the run ends with
    /// ``AsyncBridgeError/completionNeverCalled``, reported before its consumers are told,
    /// unless it had ended already.
    @usableFromInline
    func completionNeverCalled() {
        let outcome = FutureOutcome<Success, Failure>.broken(.completionNeverCalled)
        let reporter = reporter
        guard madeForRun else {
            switch withLock({ $0.call(outcome, self, onStarter: false) }) {
            case .again: return  // it was called
            case .forward(let waiter): waiter.complete(outcome) { reporter.report(.completionNeverCalled, failure: Failure.self) }
            case .kept: preconditionFailure("Internal inconsistency: a completer was released while its operation was starting")
            }
            return
        }
        guard let run = takeRunIfFirst(), let ended = run.end(outcome) else { return }
        reporter.report(.completionNeverCalled, failure: Failure.self)
        ended.consumers?.deliver(outcome)
    }
}
