/// Check-then-request access to something the user must allow (contacts, the camera,
/// notifications), asking only if needed and once for all the callers waiting at the time.
///
/// ```swift
/// let camera = AuthorizationGate(
///     status: { Permissions.camera.status },
///     request: { Permissions.camera.requestAccess(completion: $0) }
/// )
/// try await camera.requestAccess()   // returns when granted, throws AuthorizationError if not
/// ```
///
/// RxSwift: a `flatMap` chain of `Single`s; Combine: `checkAccess().flatMap { requestAccessFuture() }`
/// (both ask again for every overlapping call).
///
/// The status read after asking decides, not the request's answer. A request in progress runs
/// to completion whoever gives up; one that never answers needs a `timeout`. Its completion
/// block follows the rules of `withValueCompletion`. See <doc:Coordination>.
public struct AuthorizationGate: Sendable {
    let readStatus: @Sendable () async throws -> AuthorizationStatus
    let request: @Sendable () async -> Void
    /// Limits one caller's wait for the shared request to the timeout, if there is one.
    let limit: (@Sendable (_ wait: @escaping @Sendable () async throws -> AuthorizationStatus?) async throws -> AuthorizationStatus?)?
    /// The shared request; its result is the status after it (`nil`: it could not be read).
    let prompts = SingleFlight<Unkeyed, AuthorizationStatus?, Never>(policy: .runToCompletion)

    /// A gate whose request is a completion-block API answering with a `Bool` (the camera's,
    /// the microphone's).
    ///
    /// ```swift
    /// let camera = AuthorizationGate(
    ///     status: { Permissions.camera.status },
    ///     request: { completion in Permissions.camera.requestAccess(completion: completion) }
    /// )
    /// ```
    ///
    /// - Parameters:
    ///   - timeout: How long each caller waits for the answer, on `clock`; `nil` (the default)
    ///     waits as long as it takes; zero or negative is a precondition failure. A caller past
    ///     its deadline with the status undetermined gets ``AuthorizationError/timedOut``.
    ///   - clock: The clock of the timeout; `ManualClock` (AsyncBridgeTesting) in tests.
    ///   - fileID: The file that misuse reports (``MisuseReport``) name; leave the default.
    ///   - line: The line those reports name.
    ///   - status: Reads the current status; may be `async` and may throw (then the callers get
    ///     ``AuthorizationError/statusUnavailable``, without asking).
    ///   - request: Receives the completion block to call with the answer.
    public init<C: Clock>(
        timeout: C.Duration? = nil,
        clock: C = ContinuousClock(),
        fileID: StaticString = #fileID,
        line: UInt = #line,
        status: @escaping @Sendable () async throws -> AuthorizationStatus,
        request: @escaping @Sendable (_ completion: @escaping @Sendable (Bool) -> Void) -> Void
    ) {
        self.init(timeout: timeout, clock: clock, status: status) {
            _ = try? await CompletionWaiter<Bool, Never>.awaitCompletion(isolation: nil, .authorizationGate, fileID, line) { completer in
                request { completer.resolve(.success($0)) }
                return nil
            }
        }
    }

    /// A gate whose request is a completion-block API answering with a `Bool` and an error (the
    /// contacts'); the error counts as no answer.
    ///
    /// ```swift
    /// let contacts = AuthorizationGate(
    ///     status: { try await Permissions.contacts.currentStatus() },
    ///     request: { completion in Permissions.contacts.requestAccess(completionHandler: completion) }
    /// )
    /// ```
    ///
    /// The parameters are those of the `(Bool) -> Void` initialiser.
    @_disfavoredOverload  // a closure that only stores the block fits both shapes; `(Bool) -> Void` is the choice
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

    /// A gate whose request is an async function answering with a `Bool`; a thrown error counts
    /// as no answer. The other parameters are those of the completion-block initialisers.
    ///
    /// ```swift
    /// let notifications = AuthorizationGate(
    ///     status: { await Permissions.notifications.currentStatus() },
    ///     request: { try await Permissions.notifications.requestAuthorization() }
    /// )
    /// ```
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

    func currentStatus() async -> AuthorizationStatus? {
        try? await readStatus()
    }

    /// Returns once access is granted, asking only if the status is not determined, once for
    /// all the callers waiting at the time.
    ///
    /// ```swift
    /// try await camera.requestAccess()
    /// ```
    ///
    /// Throws ``AuthorizationError`` (denied, restricted, undecided, timed out), or
    /// `CancellationError` if the task is cancelled first; cancelling a caller does not
    /// withdraw a request in progress.
    public func requestAccess() async throws {
        try await access().get()
    }

    /// ``requestAccess()`` as a lazy `SharedFuture` with a typed failure; its consumers share one
    /// check (and request, if any).
    ///
    /// ```swift
    /// let result = try await camera.future().result   // Result<Void, AuthorizationError>
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

    /// ``requestAccess()`` as a `Flow`: each subscription checks (and asks if needed), then
    /// delivers one value and finishes, or fails with ``AuthorizationError``.
    ///
    /// ```swift
    /// let token = refreshButton.taps.flatMap { camera.flow().asResult() }.subscribe { print($0) }
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

    /// The check, the shared request if needed, and the verdict.
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

    /// One request, shared by the callers waiting meanwhile: reads the status again (a request
    /// just finished may have decided it), asks, and reads it once more.
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

/// Whether the user allows access, as an ``AuthorizationGate`` sees it; map your platform's
/// status (`AVAuthorizationStatus`, …) to it.
///
/// ```swift
/// let status: AuthorizationStatus = CameraPermission.status == .authorized ? .granted : .denied
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
    /// The request ended and the status is still not determined.
    case notDetermined
    /// The request did not answer within the gate's timeout; the status is still not determined.
    case timedOut
    /// The gate's `status` closure threw: the status could not be read, so nobody was asked.
    case statusUnavailable
}
