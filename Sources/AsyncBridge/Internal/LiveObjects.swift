#if DEBUG
/// Counts the package's live stateful objects created inside ``track(_:)``, so a test can
/// assert that nothing it created outlived it (contract 5). Debug builds only: in release
/// builds this type does not exist and a ``Lock`` costs nothing more than its mutex.
///
/// What it counts: every ``Lock`` (a `LockBuffer`), which is where every stateful object of
/// the package keeps its state — subjects and their subscribers, `FlowSubscription`s,
/// `SerialDrain`s, flatMap, `share`, `SharedFuture`, `values`, `BroadcastChannel`, `SingleFlight`,
/// retry and timer storage, `CancellationToken`s — and the completer (`FutureCompleter`), which
/// has the same layout. A leaked subscriber chain holds at least one of them. (`SerialState` has no
/// lock and is not counted; it lives inside an operator's subscriber, which has one.)
///
/// Why a scope rather than a global total (RxSwift's `Resources.total`): Swift Testing runs
/// tests in parallel, in one process, so a global count moves with every other test, and
/// `.serialized` orders only the tests of one suite. A scope is bound as a task-local value
/// (which also works for synchronous code on a thread of one's own) and captured by each
/// object when it is created, the way ``AsyncBridgeDiagnostics/handler`` is; the object
/// reports its end to the same scope, on whatever thread releases it. So a scope counts
/// exactly the objects created while it was bound — in the tracked body, in tasks it starts
/// (`Task {}` inherits task-local values, `Task.detached` does not), and on threads whose work
/// is itself wrapped in ``track(_:)`` — whatever else the process runs meanwhile. The
/// innermost bound scope wins. Objects created on a thread where no scope is bound (a
/// `DispatchQueue` of one's own, unless its work is wrapped too) are not counted.
///
/// ```swift
/// let scope = LiveObjectScope()
/// scope.track {
///     let subject = LiveSubject<Int, Never>()
///     subject.flow.subscribe(onValue: { print($0) }).cancel()
/// }
/// assert(scope.alive == 0)
/// ```
///
/// RxSwift: `Resources.total` (a global count, `TRACE_RESOURCES` builds); Combine has none.
@_spi(AsyncBridgeInternals)
public final class LiveObjectScope: Sendable {
    /// The scope bound for the current task or thread.
    @TaskLocal static var current: LiveObjectScope?

    private struct Counts {
        var created = 0
        var alive = 0
        var whenNoneAlive: [@Sendable () -> Void] = []
    }

    /// Not tracked itself (see `LockBuffer.makeUntracked`): a scope must not count its own lock.
    private let counts: Lock<Counts>

    /// Creates a scope that has counted nothing.
    ///
    /// ```swift
    /// let scope = LiveObjectScope()
    /// ```
    public init() {
        counts = Lock(buffer: .makeUntracked { Counts() })
    }

    /// How many objects created inside ``track(_:)`` are alive now.
    ///
    /// ```swift
    /// #expect(scope.alive == 0)
    /// ```
    public var alive: Int { counts.withLock { $0.alive } }

    /// How many objects were created inside ``track(_:)`` so far.
    ///
    /// ```swift
    /// #expect(scope.created > 0)
    /// ```
    public var created: Int { counts.withLock { $0.created } }

    /// Runs `body` with this scope bound: the objects it creates, on this thread or in tasks
    /// it starts, are counted here until they are released.
    ///
    /// ```swift
    /// let token = scope.track { subject.flow.subscribe(onValue: { _ in }) }
    /// ```
    public func track<Result>(_ body: () throws -> Result) rethrows -> Result {
        try Self.$current.withValue(self, operation: body)
    }

    /// Runs the async `body` with this scope bound.
    ///
    /// ```swift
    /// try await scope.track { for try await value in flow.values { print(value) } }
    /// ```
    public func track<Result>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async rethrows -> Result {
        try await Self.$current.withValue(self, operation: body, isolation: isolation)
    }

    /// Calls `action` once no object of this scope is alive: at once if none is, else on the
    /// thread that releases the last one (after the scope's lock is released). For tests
    /// that must wait for tasks to wind down, without sleeping.
    ///
    /// ```swift
    /// scope.whenNoneAlive { semaphore.signal() }
    /// ```
    public func whenNoneAlive(_ action: @escaping @Sendable () -> Void) {
        let now = counts.withLock { counts -> Bool in
            if counts.alive == 0 { return true }
            counts.whenNoneAlive.append(action)
            return false
        }
        if now { action() }
    }

    /// An object was created with this scope bound.
    func objectCreated() {
        counts.withLock { counts in
            counts.created += 1
            counts.alive += 1
        }
    }

    /// An object this scope counted was released.
    func objectReleased() {
        let actions = counts.withLock { counts -> [@Sendable () -> Void] in
            counts.alive -= 1
            guard counts.alive == 0 else { return [] }
            defer { counts.whenNoneAlive = [] }
            return counts.whenNoneAlive
        }
        for action in actions { action() }
    }

}

/// What counts one object in the ``LiveObjectScope`` bound when it was made: the object owns
/// its ticket (a ``LockBuffer`` in its element), and the ticket, released with it, reports the
/// end to the scope it holds. (Not SPI: inlinable code makes and stores it.)
@usableFromInline
final class LiveObjectTicket: Sendable {
    private let scope: LiveObjectScope

    private init(_ scope: LiveObjectScope) {
        scope.objectCreated()
        self.scope = scope
    }

    /// A ticket of the scope bound now; `nil` when none is bound.
    @usableFromInline
    static func forNewObject() -> LiveObjectTicket? {
        LiveObjectScope.current.map(LiveObjectTicket.init)
    }

    deinit {
        scope.objectReleased()
    }
}
#endif
