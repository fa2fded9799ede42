import AsyncBridge
import Dispatch

/// Coordination: check-then-request authorization (check the permission's status, ask only
/// when it is not determined), and a token refresh that many requests need at once.
enum CoordinationScenarios {
    static func run() async throws {
        try await authorization()
        try await tokenRefresh()
    }

    // MARK: Check, then request, once

    static func authorization() async throws {
        section("Check-then-request authorization (AuthorizationGate)")
        let contacts = SimulatedContactsPermission()
        let gate = AuthorizationGate(
            status: { contacts.status },
            request: { contacts.requestAccess(completion: $0) }
        )
        async let profile = openScreen("profile", gate)
        async let friends = openScreen("friends", gate)
        print("  \(await profile)\n  \(await friends)")
        print("  prompts shown: \(contacts.promptCount)")
        print("  later: \(await openScreen("settings", gate)); prompts shown: \(contacts.promptCount)")
    }

    static func openScreen(_ name: String, _ gate: AuthorizationGate) async -> String {
        do {
            try await gate.requestAccess()
            return "\(name) screen: access granted, showing contacts"
        } catch {
            return "\(name) screen: no access (\(error))"
        }
    }

    // MARK: Token refresh

    static func tokenRefresh() async throws {
        section("Token refresh: five requests find the token expired, one refresh (SingleFlight)")
        let server = TokenServer()
        let refresher = SingleFlight<String, String, any Error>()
        let refreshToken = "refresh-1"
        let lines = try await withThrowingTaskGroup(of: String.self) { group in
            for request in 1...5 {
                group.addTask {
                    let token = try await refresher.run(key: refreshToken) { try await server.refresh(refreshToken) }
                    return "request \(request) retried with \(token)"
                }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        for line in lines.sorted() { print("  \(line)") }
        print("  refreshes sent: \(server.refreshCount)")
    }
}

/// The contacts permission of a device: not determined until the user answers a system
/// prompt, which appears on `requestAccess` and is answered ("Allow") after a short delay.
final class SimulatedContactsPermission: Sendable {
    private let queue = DispatchQueue(label: "SimulatedContactsPermission")
    nonisolated(unsafe) private var granted = false
    nonisolated(unsafe) private var prompts = 0

    var status: AuthorizationStatus { queue.sync { granted ? .granted : .notDetermined } }
    var promptCount: Int { queue.sync { prompts } }

    func requestAccess(completion: @escaping @Sendable (Bool) -> Void) {
        queue.sync { prompts += 1 }
        print("  [system] \"Allow access to your contacts?\" (prompt \(promptCount))")
        queue.asyncAfter(deadline: .now() + .milliseconds(50)) {
            self.granted = true
            print("  [system] the user tapped Allow")
            completion(true)
        }
    }
}

/// A server that exchanges a refresh token for a new access token, after some latency.
final class TokenServer: Sendable {
    private let refreshes = RequestLog()

    var refreshCount: Int { refreshes.count }

    func refresh(_ refreshToken: String) async throws -> String {
        refreshes.increment()
        try await Task.sleep(for: .milliseconds(30))  // a demo may wait; tests never do
        return "access-\(refreshes.count)"
    }
}
