/// Check-then-request access to something the user must allow (contacts, the camera,
/// notifications): one call that returns once access is granted, asking only if needed and
/// asking once however many callers want it at the same time.
///
/// Configure it with how to read the current status and how to ask:
///
/// ```swift
/// let camera = AuthorizationGate(
///     status: { Permissions.camera.status },
///     request: { Permissions.camera.requestAccess(completion: $0) }
/// )
/// try await camera.requestAccess()   // returns when granted, throws AuthorizationError if not
/// ```
///
/// What ``requestAccess()`` does:
/// 1. Reads the status. `.granted` returns at once; `.denied` and `.restricted` throw
///    ``AuthorizationError`` without asking.
/// 2. `.notDetermined`: runs the request, one for all the callers that are waiting meanwhile
///    (a ``SingleFlight`` that runs to completion: a prompt on screen cannot be withdrawn, so a
///    caller that gives up leaves it showing, and a caller that comes next joins it).
/// 3. Reads the status again, which decides: the request's own answer is not trusted alone.
///
/// The request's completion block is held to the rules of `withValueCompletion`: called twice,
/// the second call is ignored; released without being called, the status read afterwards
/// decides (both are reported through ``AsyncBridgeDiagnostics``, naming the gate's
/// `init`). A request that keeps its
/// block and never calls it needs a `timeout`: each caller then gets
/// ``AuthorizationError/timedOut`` at its own deadline, and the request stays the one later
/// callers join until it answers or releases its block.
///
/// Combine: the usual `checkAccess().publisher.flatMap { … requestAccessFuture() }`, which
/// asks again for every tap that finds the status undetermined, overlapping taps included;
/// RxSwift: the same chain with `flatMap` and `Single`.
public struct AuthorizationGate: Sendable {
    let readStatus: @Sendable () async throws -> AuthorizationStatus
    let request: @Sendable () async -> Void
    /// Limits one caller's wait for the shared request to the timeout, if there is one.
    let limit: (@Sendable (_ wait: @escaping @Sendable () async throws -> AuthorizationStatus?) async throws -> AuthorizationStatus?)?
    /// The shared request; its result is the status after it (`nil`: it could not be read).
    let prompts = SingleFlight<Unkeyed, AuthorizationStatus?, Never>(policy: .runToCompletion)

    /// A gate whose request is a completion-block API answering with a `Bool`, as the camera's
    /// and the microphone's do: `request` receives the completion block, `(Bool) -> Void`, to
    /// pass to the platform's API.
    ///
    /// ```swift
    /// let camera = AuthorizationGate(
    ///     status: { Permissions.camera.status },
    ///     request: { completion in Permissions.camera.requestAccess(completion: completion) }
    /// )
    /// ```
    ///
    /// - Parameters:
    ///   - timeout: How long each caller waits for the request's answer, on `clock`; `nil` (the
    ///     default) waits as long as it takes. More than zero (zero or negative: a precondition
    ///     failure, README, "Durations and counts"). At a caller's deadline the status is read again:
    ///     if it is still not determined, that caller gets ``AuthorizationError/timedOut``. The
    ///     request itself is not abandoned (a prompt on screen cannot be withdrawn): callers
    ///     that come later join it rather than ask again.
    ///   - clock: The clock of the timeout; `ManualClock` (AsyncBridgeTesting) in tests.
    ///   - fileID: The file that misuse reports of `request`'s completion block name
    ///     (``MisuseReport``); leave it to its default.
    ///   - line: The line those reports name.
    ///   - status: Reads the current status; map your platform's status to ``AuthorizationStatus``.
    ///     It may be `async` and may throw: a status that cannot be read fails the callers with
    ///     ``AuthorizationError/statusUnavailable``, without asking.
    ///   - request: Asks the user: receives the completion block to call with the answer. The
    ///     `Bool` is not trusted alone: the status read afterwards decides.
    public init<C: Clock>(
        timeout: C.Duration? = nil,
        clock: C = ContinuousClock(),
        fileID: StaticString = #fileID,
        line: UInt = #line,
        status: @escaping @Sendable () async throws -> AuthorizationStatus,
        request: @escaping @Sendable (_ completion: @escaping @Sendable (Bool) -> Void) -> Void
    ) {
        self.init(timeout: timeout, clock: clock, status: status) {
            _ = try? await SharedFuture<Bool, Never>.bridge(isolation: nil, .authorizationGate, fileID, line) { completer in
                request { completer.resolve(.success($0)) }
                return nil
            }
        }
    }

    /// A gate whose request is a completion-block API answering with a `Bool` and an error, as
    /// the contacts' and the notifications' do: `request` receives the completion block,
    /// `(Bool, (any Error)?) -> Void`. The error counts as no answer: the status read
    /// afterwards decides.
    ///
    /// ```swift
    /// let contacts = AuthorizationGate(
    ///     status: { try await Permissions.contacts.currentStatus() },
    ///     request: { completion in Permissions.contacts.requestAccess(completionHandler: completion) }
    /// )
    /// ```
    ///
    /// Chosen over the `(Bool) -> Void` form only when the block passed on takes two arguments
    /// (disfavoured, so that `{ _ in … }` stays the one-argument form).
    ///
    /// - Parameters:
    ///   - timeout: How long each caller waits for the request's answer, on `clock`; `nil` waits
    ///     as long as it takes (see the `(Bool) -> Void` form).
    ///   - clock: The clock of the timeout.
    ///   - fileID: The file that misuse reports of `request`'s completion block name; leave it
    ///     to its default.
    ///   - line: The line those reports name.
    ///   - status: Reads the current status; may be `async` and may throw (then the callers get
    ///     ``AuthorizationError/statusUnavailable``).
    ///   - request: Asks the user: receives the completion block to call with the answer.
    @_disfavoredOverload
    public init<C: Clock>(
        timeout: C.Duration? = nil,
        clock: C = ContinuousClock(),
        fileID: StaticString = #fileID,
        line: UInt = #line,
        status: @escaping @Sendable () async throws -> AuthorizationStatus,
        request: @escaping @Sendable (_ completion: @escaping @Sendable (Bool, (any Error)?) -> Void) -> Void
    ) {
        self.init(timeout: timeout, clock: clock, fileID: fileID, line: line, status: status) {
            (completion: @escaping @Sendable (Bool) -> Void) in
            request { granted, _ in completion(granted) }
        }
    }

    /// A gate whose request is an async function answering with a `Bool`.
    ///
    /// An error thrown by the request counts as no answer: the status read afterwards decides.
    ///
    /// ```swift
    /// let notifications = AuthorizationGate(
    ///     status: { await Permissions.notifications.currentStatus() },
    ///     request: { try await Permissions.notifications.requestAuthorization() }
    /// )
    /// ```
    @_disfavoredOverload
    public init<C: Clock>(
        timeout: C.Duration? = nil,
        clock: C = ContinuousClock(),
        status: @escaping @Sendable () async throws -> AuthorizationStatus,
        request: @escaping @Sendable () async throws -> Bool
    ) {
        self.init(timeout: timeout, clock: clock, status: status) { _ = try? await request() }
    }

    init<C: Clock>(
        timeout: C.Duration?,
        clock: C,
        status: @escaping @Sendable () async throws -> AuthorizationStatus,
        ask: @escaping @Sendable () async -> Void
    ) {
        if let timeout { checkDuration(timeout, of: "AuthorizationGate(timeout:)", named: "timeout", allowingZero: false) }
        readStatus = status
        request = ask
        if let timeout {
            limit = { @Sendable wait in try await withTimeout(timeout, clock: clock, operation: wait) }
        } else {
            limit = nil
        }
    }

    /// The current status, read now; throws ``AuthorizationError/statusUnavailable`` if the
    /// gate's `status` closure threw.
    ///
    /// ```swift
    /// if try await camera.status == .denied { showSettingsHint() }
    /// ```
    public var status: AuthorizationStatus {
        get async throws(AuthorizationError) {
            guard let status = await currentStatus() else { throw .statusUnavailable }
            return status
        }
    }

    /// The status, or `nil` if the `status` closure threw.
    func currentStatus() async -> AuthorizationStatus? {
        try? await readStatus()
    }

    /// Returns once access is granted, asking the user only if the status is not determined,
    /// and only once for all the callers waiting at the same time.
    ///
    /// Throws ``AuthorizationError`` when access is denied or restricted (before or after
    /// asking), when the request ended without a decision, or when it timed out; and
    /// `CancellationError` when the calling task is cancelled first. Cancelling a caller does
    /// not withdraw a request in progress: the other callers keep waiting for it, and later
    /// callers join it.
    ///
    /// ```swift
    /// do {
    ///     try await camera.requestAccess()
    ///     startCapture()
    /// } catch AuthorizationError.denied {
    ///     showSettingsHint()
    /// }
    /// ```
    public func requestAccess() async throws {
        try await access().get()
    }

    /// ``requestAccess()`` as a lazy `SharedFuture` with a typed failure: it runs when first
    /// consumed, and its consumers share that one check (and request, if any).
    ///
    /// ```swift
    /// switch try await camera.future().result {
    /// case .success: startCapture()
    /// case .failure(let error): show(error)   // typed: AuthorizationError
    /// }
    /// ```
    public func future() -> SharedFuture<Void, AuthorizationError> {
        SharedFuture(work: { completer in
            let task = Task {
                // Cancelled only once every consumer has left, when nobody needs the result.
                guard let result = try? await access() else { return }
                completer.resolve(result)
            }
            return { task.cancel() }
        })
    }

    /// ``requestAccess()`` as a `Flow`: each subscription checks (and asks, if needed, joining a
    /// request in progress), then delivers one value and finishes, or fails with
    /// ``AuthorizationError``. The check-then-request pipeline, for code written with flows.
    ///
    /// ```swift
    /// let token = refreshButton.taps
    ///     .flatMap { camera.flow().asResult() }
    ///     .subscribe { event in print(event) }
    /// ```
    public func flow() -> Flow<Void, AuthorizationError> {
        .deferred { Flow(future()) }
    }

    /// How many callers wait for the request in progress. For tests.
    ///
    /// ```swift
    /// while camera.waiterCount < 2 { await Task.yield() }
    /// ```
    @_spi(AsyncBridgeInternals)
    public var waiterCount: Int {
        prompts.waiterCount(key: .shared)
    }

    /// The check, the shared request if needed, and the verdict. Throws only
    /// `CancellationError`.
    func access() async throws(CancellationError) -> Result<Void, AuthorizationError> {
        if Task.isCancelled { throw CancellationError() }
        let status = await currentStatus()
        guard status == .notDetermined else { return Self.verdict(status) }
        if Task.isCancelled { throw CancellationError() }  // do not start a prompt for nobody
        let prompts = prompts, ask = ask
        guard let limit else {
            return Self.verdict(try await prompts.result(operation: ask).get())
        }
        do {
            return Self.verdict(try await limit { try await prompts.result(operation: ask).get() })
        } catch is TimeoutError {
            // This caller's deadline passed; the request goes on for the others and later callers.
            let after = await currentStatus()
            return after == .notDetermined ? .failure(.timedOut) : Self.verdict(after)
        } catch {
            throw CancellationError()  // the only other error of `withTimeout` here
        }
    }

    /// One request, shared by every caller waiting meanwhile: reads the status again (a
    /// request that finished just before may have decided it), asks, and reads it once more.
    @Sendable
    func ask() async -> AuthorizationStatus? {
        let before = await currentStatus()
        guard before == .notDetermined else { return before }
        await request()
        return await currentStatus()
    }

    /// What a final status means for the callers (`nil`: it could not be read).
    static func verdict(_ status: AuthorizationStatus?) -> Result<Void, AuthorizationError> {
        switch status {
        case nil: return .failure(.statusUnavailable)
        case .granted: return .success(())
        case .denied: return .failure(.denied)
        case .restricted: return .failure(.restricted)
        case .notDetermined: return .failure(.notDetermined)
        }
    }
}

/// Whether the user allows access, as an ``AuthorizationGate`` sees it. Map your platform's
/// status to it (`CNAuthorizationStatus`, `AVAuthorizationStatus`, …).
///
/// ```swift
/// let status: AuthorizationStatus = switch CameraPermission.status {
/// case .authorized: .granted
/// case .notDetermined: .notDetermined
/// case .restricted: .restricted
/// case .denied: .denied
/// }
/// ```
public enum AuthorizationStatus: Hashable, Sendable {
    /// The user has not been asked yet: a request may grant access.
    case notDetermined
    /// Access is allowed.
    case granted
    /// The user refused; asking again shows nothing (send them to Settings).
    case denied
    /// Access is not the user's to give (parental controls, device management).
    case restricted
}

/// Why an ``AuthorizationGate`` did not grant access.
///
/// ```swift
/// catch let error as AuthorizationError where error == .denied { showSettingsHint() }
/// ```
public enum AuthorizationError: Error, Hashable, Sendable {
    /// The status is ``AuthorizationStatus/denied``, before or after asking.
    case denied
    /// The status is ``AuthorizationStatus/restricted``.
    case restricted
    /// The request ended and the status is still not determined (the prompt was dismissed,
    /// the request failed, or it dropped its completion block).
    case notDetermined
    /// The request did not answer within the gate's timeout, and the status is still not
    /// determined.
    case timedOut
    /// The gate's `status` closure threw: the status could not be read, so nobody was asked.
    case statusUnavailable
}
