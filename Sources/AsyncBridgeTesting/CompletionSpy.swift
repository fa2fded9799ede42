@_spi(AsyncBridgeInternals) import AsyncBridge

/// Records every call of a completion block, so a test can assert it was called exactly once
/// and wait for the call without sleeping.
///
/// ```swift
/// let spy = CompletionSpy<Result<User, any Error>>()
/// future.subscribe(spy.completion)
/// let result = await spy.firstCall()
/// #expect(spy.callCount == 1)
/// ```
public final class CompletionSpy<Value: Sendable>: Sendable {
    private struct State {
        var calls: [Value] = []
        var waiters: [CheckedContinuation<Value, Never>] = []
    }

    private let state = SharedLock(State())

    /// Creates a spy that has seen no call.
    ///
    /// ```swift
    /// let spy = CompletionSpy<Int>()
    /// ```
    public init() {}

    /// The completion block to hand to the code under test. Callable from any thread.
    ///
    /// ```swift
    /// api.getUser(id: 42, completion: spy.completion)
    /// ```
    public var completion: @Sendable (Value) -> Void {
        { [self] value in record(value) }
    }

    /// Records one call; the same as calling ``completion``.
    ///
    /// ```swift
    /// spy.record(.success(user))
    /// ```
    public func record(_ value: Value) {
        let waiters = state.withLock { state -> [CheckedContinuation<Value, Never>] in
            state.calls.append(value)
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: value) }
    }

    /// Every call so far, in order.
    ///
    /// ```swift
    /// #expect(spy.calls.count == 1)
    /// ```
    public var calls: [Value] { state.withLock { $0.calls } }

    /// How many times the completion block has been called.
    ///
    /// ```swift
    /// #expect(spy.callCount == 1)
    /// ```
    public var callCount: Int { state.withLock { $0.calls.count } }

    /// Waits until the completion block has been called, then returns its first argument.
    /// Returns at once when it has been called already.
    ///
    /// ```swift
    /// let result = await spy.firstCall()
    /// ```
    public func firstCall() async -> Value {
        await withCheckedContinuation { continuation in
            let first = state.withLock { state -> Value? in
                if let first = state.calls.first { return first }
                state.waiters.append(continuation)
                return nil
            }
            if let first { continuation.resume(returning: first) }
        }
    }
}
