@_spi(AsyncBridgeInternals) import AsyncBridge
import AsyncBridgeTesting
import Testing

/// The shapes platform permission APIs have: a `(Bool, Error?)` completion block, a status read
/// that is async and may throw.
@Suite("AuthorizationGate: (Bool, Error?) requests and throwing status reads", .timeLimit(.minutes(1)))
struct AuthorizationGateShapesTests {
    struct StatusUnreadable: Error {}

    /// A contacts-style API: the completion block takes the answer and an error.
    final class ContactsStore: Sendable {
        let status = SharedLock(AuthorizationStatus.notDetermined)
        let requests = SharedLock(0)

        func requestAccess(completionHandler: @escaping @Sendable (Bool, (any Error)?) -> Void) {
            requests.withLock { $0 += 1 }
            status.withLock { $0 = .granted }
            completionHandler(true, nil)
        }
    }

    @Test func aRequestWhoseBlockTakesAnAnswerAndAnError() async throws {
        let store = ContactsStore()
        let gate = AuthorizationGate(
            status: { store.status.withLock { $0 } },
            request: { completion in store.requestAccess(completionHandler: completion) }
        )
        try await gate.requestAccess()
        #expect(store.requests.withLock { $0 } == 1)
        #expect(try await gate.status == .granted)
    }

    @Test func anErrorInTheBlockCountsAsNoAnswerAndTheStatusDecides() async {
        let status = SharedLock(AuthorizationStatus.notDetermined)
        let gate = AuthorizationGate(
            status: { status.withLock { $0 } },
            request: { (completion: @escaping @Sendable (Bool, (any Error)?) -> Void) in
                status.withLock { $0 = .denied }
                completion(true, StatusUnreadable())   // says yes, with an error: the status decides
            }
        )
        await #expect(throws: AuthorizationError.denied) { try await gate.requestAccess() }
    }

    @Test func aStatusThatCannotBeReadFailsWithoutAsking() async {
        let asked = SharedLock(0)
        let gate = AuthorizationGate(
            status: { () async throws -> AuthorizationStatus in throw StatusUnreadable() },
            request: { (completion: @escaping @Sendable (Bool) -> Void) in
                asked.withLock { $0 += 1 }
                completion(true)
            }
        )
        await #expect(throws: AuthorizationError.statusUnavailable) { try await gate.requestAccess() }
        await #expect(throws: AuthorizationError.statusUnavailable) { try await gate.status }
        let viaFuture = try? await gate.future().result
        #expect(throws: AuthorizationError.statusUnavailable) { try viaFuture?.get() }
        #expect(asked.withLock { $0 } == 0)
    }

    /// Unreadable after the prompt: the callers get `statusUnavailable`, not a guess.
    @Test func aStatusUnreadableAfterThePromptFailsTheCallers() async {
        let reads = SharedLock(0)
        let gate = AuthorizationGate(
            status: { () async throws -> AuthorizationStatus in
                let read = reads.withLock { $0 += 1; return $0 }
                if read > 2 { throw StatusUnreadable() }
                return .notDetermined
            },
            request: { (completion: @escaping @Sendable (Bool) -> Void) in completion(true) }
        )
        await #expect(throws: AuthorizationError.statusUnavailable) { try await gate.requestAccess() }
    }
}
