import Foundation
import Testing
@_spi(AsyncBridgeInternals) import AsyncBridge
import AsyncBridgeTesting

/// A child process as a lazy `SharedFuture` of its exit status: it is launched when the first consumer
/// arrives, `terminationHandler` completes the future, and cancelling the last consumer
/// terminates the process.
func exitStatus(ofShellCommand command: String, launched: CompletionSpy<Int32>? = nil) -> SharedFuture<Int32, any Error> {
    SharedFuture { completion, onCancel in
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.terminationHandler = { completion(.success($0.terminationStatus)) }
        do {
            try process.run()
            launched?.record(process.processIdentifier)
        } catch {
            completion(.failure(error))
        }
        onCancel { forceTerminate(process) }
    }
}

/// Ends `process` with SIGKILL. `Process.terminate()` sends SIGTERM, and on Linux a child
/// started from a Swift concurrency or Dispatch thread inherits that thread's signal mask, in
/// which SIGTERM is blocked: the child would never see it. SIGKILL cannot be blocked.
func forceTerminate(_ process: Process) {
    guard process.isRunning else { return }
    kill(process.processIdentifier, SIGKILL)
}

@Suite("Process termination → SharedFuture", .timeLimit(.minutes(1)))
struct ProcessBridgeTests {
    @Test func theExitStatusArrivesWhenTheProcessTerminates() async throws {
        #expect(try await exitStatus(ofShellCommand: "exit 0").value == 0)
        #expect(try await exitStatus(ofShellCommand: "exit 3").value == 3)
    }

    @Test func aProcessThatCannotBeLaunchedFailsTheFuture() async {
        let missing = SharedFuture<Int32, any Error> { completion in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/nonexistent/AsyncBridgeTests")
            process.terminationHandler = { completion(.success($0.terminationStatus)) }
            do { try process.run() } catch { completion(.failure(error)) }
        }
        await #expect(throws: (any Error).self) { try await missing.value }
    }

    @Test func theProcessStartsWithTheFirstConsumerAndRunsOnceForAll() async throws {
        let launched = CompletionSpy<Int32>()
        let status = exitStatus(ofShellCommand: "exit 5", launched: launched)
        #expect(launched.callCount == 0)
        async let first = status.value
        async let second = status.value
        #expect(try await [first, second] == [5, 5])
        #expect(try await status.value == 5)   // memoised
        #expect(launched.callCount == 1)
    }

    @Test func cancellingTheLastConsumerTerminatesTheProcess() async throws {
        let launched = CompletionSpy<Int32>()
        let terminated = CompletionSpy<Process.TerminationReason>()
        let cancelActions = AtomicCounter()
        let long = SharedFuture<Int32, any Error> { completion, onCancel in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "exec sleep 600"]   // the child waits, not the test
            process.terminationHandler = {
                terminated.record($0.terminationReason)
                completion(.success($0.terminationStatus))
            }
            do {
                try process.run()
                launched.record(process.processIdentifier)
            } catch {
                completion(.failure(error))
            }
            onCancel {
                cancelActions.increment()
                forceTerminate(process)
            }
        }
        let waiter = Task { try await long.value }
        _ = await launched.firstCall()
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(await terminated.firstCall() == .uncaughtSignal)
        #expect(cancelActions.value == 1)
    }
}
