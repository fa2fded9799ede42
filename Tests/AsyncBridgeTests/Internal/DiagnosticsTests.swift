import Dispatch
import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("Diagnostics hook")
struct DiagnosticsTests {
    @Test func misuseOnAnotherThreadReachesTheHandlerOfTheCreatingTask() async throws {
        let recorder = MisuseRecorder()
        let operation = PendingOperation<Result<Int, Never>>()
        let future = recorder.record { SharedFuture<Int, Never> { operation.start($0) } }
        let spy = CompletionSpy<Result<Int, any Error>>()
        future.subscribe(spy.completion)  // outside the recorder's scope
        let done = CompletionSpy<Void>()
        DispatchQueue.global().async {
            operation.complete(.success(1))
            operation.complete(.success(2))
            done.record(())
        }
        await done.firstCall()
        #expect(recorder.misuses == reported([.completionCalledMoreThanOnce]))
        #expect(spy.callCount == 1)
    }

    @Test func eachMisuseHasADescription() {
        #expect(Misuse.completionCalledMoreThanOnce.description.contains("more than once"))
        #expect(Misuse.completionNeverCalled.description.contains("without being called"))
    }

    @Test func correctUseReportsNothing() async throws {
        let recorder = MisuseRecorder()
        _ = try await recorder.record { try await withCompletion { LegacyAPI().user(id: 1, completion: $0) } }
        #expect(recorder.misuses.isEmpty)
    }
}
