import Dispatch
import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("Diagnostics hook")
struct DiagnosticsTests {
    @Test func misuseOnAnotherThreadReachesTheHandlerOfTheCreatingTask() async throws {
        let recorder = MisuseRecorder()
        let operation = PendingOperation<Result<Int, Never>>()
        let (future, line) = recorder.record { (SharedFuture<Int, Never> { operation.start($0) }, #line) }
        let spy = CompletionSpy<Result<Int, any Error>>()
        future.subscribe(spy.completion)  // outside the recorder's scope
        let done = CompletionSpy<Void>()
        DispatchQueue.global().async {
            operation.complete(.success(1))
            operation.complete(.success(2))
            done.record(())
        }
        await done.firstCall()
        #expect(recorder.expectable == reported([
            ExpectedReport(.completionCalledMoreThanOnce, "SharedFuture(_:)", line: line, "the later call was ignored"),
        ]))
        #expect(spy.callCount == 1)
    }

    #if DEBUG
    @Test func aReportSaysWhichBridgeWhereAndWhatItDid() async throws {
        let recorder = MisuseRecorder()
        let (future, line) = recorder.record { (SharedFuture<Int, Never>.neverFailing { _ in }, #line) }
        await #expect(throws: AsyncBridgeError.completionNeverCalled) { try await future.value }
        let report = try #require(recorder.reports.first)
        #expect(report.misuse == .completionNeverCalled)
        #expect(report.bridge == "SharedFuture.neverFailing(_:)")
        #expect(report.fileID == "AsyncBridgeTests/DiagnosticsTests.swift")
        #expect(report.line == line)
        #expect(report.description == """
            SharedFuture.neverFailing(_:) at AsyncBridgeTests/DiagnosticsTests.swift:\(line): \
            a completion block was released without being called; \
            the future's run ended with AsyncBridgeError.completionNeverCalled, which value and result throw
            """)
    }

    @Test func aWrapperPassesItsCallersSiteOn() async throws {
        func status(fileID: StaticString = #fileID, line: UInt = #line) async throws -> Int {
            try await withValueCompletion(fileID: fileID, line: line) { completion in
                completion(1)
                completion(2)
            }
        }
        let recorder = MisuseRecorder()
        let (value, line) = try await recorder.record { (try await status(), #line) }
        #expect(value == 1)
        #expect(recorder.expectable == [
            ExpectedReport(.completionCalledMoreThanOnce, "withValueCompletion", line: line, "the later call was ignored"),
        ])
    }
    #endif

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
