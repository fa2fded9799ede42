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
        let value = try await recorder.record {
            try await withCompletion { (completion: @escaping @Sendable (Result<Int, Never>) -> Void) in
                completion(.success(1))
                completion(.success(2))
            }
        }
        #expect(value == 1)
        #expect(recorder.misuses == [.completionCalledMoreThanOnce])
        #expect(other.misuses.isEmpty)
    }

    @Test func recordsSynchronousScopes() async throws {
        let recorder = MisuseRecorder()
        let future = recorder.record { SharedFuture<Int, Never> { _ in } }
        await #expect(throws: AsyncBridgeError.completionNeverCalled) { try await future.value }
        #expect(recorder.misuses == [.completionNeverCalled])
    }
}
#endif
