import Testing
import AsyncBridge
import AsyncBridgeTesting

// Release builds of AsyncBridge report no misuse: nothing to record there.
#if DEBUG
@Suite("MisuseRecorder")
struct MisuseRecorderTests {
    @Test func recordsOnlyTheBridgesCreatedInsideItsScope() async throws {
        let recorder = MisuseRecorder()
        let other = MisuseRecorder()
        let line = #line + 2
        let value = try await recorder.record {
            try await withCompletion { (completion: @escaping @Sendable (Result<Int, Never>) -> Void) in
                completion(.success(1))
                completion(.success(2))
            }
        }
        #expect(value == 1)
        #expect(recorder.misuses == [.completionCalledMoreThanOnce])
        #expect(recorder.reports.map(\.bridge) == ["withCompletion"])
        #expect(recorder.reports.map(\.fileID) == [#fileID])
        #expect(recorder.reports.map(\.line) == [line])
        #expect(other.misuses.isEmpty)
    }

    @Test func recordsSynchronousScopes() async throws {
        let recorder = MisuseRecorder()
        let (future, line) = recorder.record { (SharedFuture<Int, Never> { _ in }, #line) }
        await #expect(throws: AsyncBridgeError.completionNeverCalled) { try await future.value }
        #expect(recorder.misuses == [.completionNeverCalled])
        #expect(recorder.reports.map(\.description) == ["""
            SharedFuture(_:) at \(#fileID):\(line): a completion block was released without being called; \
            the future's run ended with AsyncBridgeError.completionNeverCalled, which value and result throw
            """])
    }
}
#endif
