import Foundation
import Testing
@_spi(AsyncBridgeInternals) import AsyncBridge
import AsyncBridgeTesting

/// The chunks a `FileHandle` delivers to its `readabilityHandler`, as a `Flow` that finishes at
/// end of file: the handler is installed when a subscription starts and removed when it ends.
///
/// On Linux the handler is not called again for an end of file that arrives together with the
/// last data, so `availableData` alone would never see it. The handler therefore reads the
/// descriptor without blocking until it is drained: `read` returning 0 is the end of file, and
/// `EAGAIN` means "wait for the next call", and any other error fails the flow.
func chunks(of handle: FileHandle) -> Flow<Data, POSIXError> {
    Flow.create { emitter in
        let descriptor = handle.fileDescriptor
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        handle.readabilityHandler = { handle in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(descriptor, &buffer, buffer.count)
                if count > 0 {
                    emitter.send(Data(buffer[..<count]))
                } else if count == 0 {
                    handle.readabilityHandler = nil   // end of file
                    emitter.finish()
                    return
                } else if errno == EINTR {
                    continue
                } else if errno == EAGAIN || errno == EWOULDBLOCK {
                    return   // drained for now
                } else {
                    handle.readabilityHandler = nil
                    emitter.fail(POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO))
                    return
                }
            }
        }
        emitter.onCancel { handle.readabilityHandler = nil }
    }
}

@Suite("FileHandle.readabilityHandler ⇄ Flow", .timeLimit(.minutes(1)))
struct FileHandleBridgeTests {
    @Test func everyByteWrittenToAPipeArrivesThenTheFlowFinishes() async throws {
        let pipe = Pipe()
        let recorder = FlowRecorder(chunks(of: pipe.fileHandleForReading))
        let expected = (0..<64).map { "line \($0)\n" }.joined()
        let writer = DispatchQueue(label: "AsyncBridgeTests.pipe-writer")
        writer.async {
            for line in expected.split(separator: "\n") {
                pipe.fileHandleForWriting.write(Data("\(line)\n".utf8))
            }
            try? pipe.fileHandleForWriting.close()
        }
        await recorder.waitForCompletion()
        #expect(recorder.events.last == .finished)
        #expect(String(decoding: recorder.values.reduce(Data(), +), as: UTF8.self) == expected)
    }

    @Test func aFlowOfChunksCanBeWrittenToAFileHandle() async throws {
        let pipe = Pipe()
        let reader = FlowRecorder(chunks(of: pipe.fileHandleForReading))
        let source = Flow<Data, POSIXError>.sequence(["ab", "cd", "ef"].map { Data($0.utf8) })
        let writing = source.subscribe(
            onValue: { pipe.fileHandleForWriting.write($0) },
            onCompletion: { _ in try? pipe.fileHandleForWriting.close() }
        )
        await reader.waitForCompletion()
        writing.cancel()
        #expect(String(decoding: reader.values.reduce(Data(), +), as: UTF8.self) == "abcdef")
    }

    @Test func cancellingRemovesTheHandler() async throws {
        let pipe = Pipe()
        let reading = pipe.fileHandleForReading
        let recorder = FlowRecorder(chunks(of: reading))
        #expect(reading.readabilityHandler != nil)
        recorder.cancel()
        #expect(reading.readabilityHandler == nil)
        try pipe.fileHandleForWriting.close()
    }

    @Test func chunksCanBeIteratedAsAnAsyncSequenceUntilEndOfFile() async throws {
        let pipe = Pipe()
        let expected = String(repeating: "0123456789", count: 2_000)   // more than one read
        let allChunks = chunks(of: pipe.fileHandleForReading).values
        let reader = Task {
            var received = Data()
            for try await chunk in allChunks { received.append(chunk) }   // throws POSIXError
            return received
        }
        DispatchQueue(label: "AsyncBridgeTests.pipe-writer").async {
            pipe.fileHandleForWriting.write(Data(expected.utf8))
            try? pipe.fileHandleForWriting.close()
        }
        #expect(String(decoding: try await reader.value, as: UTF8.self) == expected)
    }
}
