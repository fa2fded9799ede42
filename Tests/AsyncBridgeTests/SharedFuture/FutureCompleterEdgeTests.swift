import Dispatch
import Testing
@_spi(AsyncBridgeInternals) import AsyncBridge
import AsyncBridgeTesting

/// The completer that keeps its state under its run's future lock, at its edges: a
/// consumer told inside a completion on the starter's thread that re-enters the future, a
/// second call made from inside that delivery, a block released on another thread, an old
/// run's completer alive across a restart, and a completion on the starter's thread racing a
/// second call and a release on another thread (for the thread sanitizer).
@Suite("FutureCompleter: re-entrancy, releases, restarts", .timeLimit(.minutes(1)))
struct FutureCompleterEdgeTests {
    /// A consumer that joined during the start is told inside the completion, on the starter's
    /// thread, before the operation returns; its handler re-enters the same future: a new
    /// subscriber is served the stored value at once, and cancelling its own token is a no-op.
    @Test func aConsumerToldInsideTheStartersCompletionMayReenterTheFuture() {
        let box = SharedLock<SharedFuture<Int, Never>?>(nil)
        let joinedToken = SharedLock<CancellationToken?>(nil)
        let reentered = SharedLock<[String]>([])
        let starts = SharedLock(0)
        let future = SharedFuture<Int, Never> { completion in
            starts.withLock { $0 += 1 }
            let future = box.withLock { $0 }!
            let token = future.subscribe { result in
                let value = (try? result.get()) ?? -1
                reentered.withLock { $0.append("told \(value)") }
                joinedToken.withLock { $0 }?.cancel()
                future.subscribe { inner in
                    let innerValue = (try? inner.get()) ?? -1
                    reentered.withLock { $0.append("served \(innerValue)") }
                }
            }
            joinedToken.withLock { $0 = token }
            completion(.success(7))
            reentered.withLock { $0.append("completion returned") }
        }
        box.withLock { $0 = future }
        let spy = CompletionSpy<Result<Int, any Error>>()
        future.subscribe(spy.completion)
        #expect(reentered.withLock { $0 } == ["told 7", "served 7", "completion returned"])
        #expect(spy.calls.count == 1)
        #expect((try? spy.calls.first?.get()) == 7)
        #expect(starts.withLock { $0 } == 1)
    }

    /// A handler told inside the first call (on the starter's thread, while the operation
    /// starts) calls the completion again: reported once, and the starter still gets the first.
    @Test func aSecondCallFromInsideTheFirstCallsDeliveryIsReportedOnce() {
        let recorder = MisuseRecorder()
        let box = SharedLock<SharedFuture<Int, Never>?>(nil)
        let held = SharedLock<(@Sendable (Result<Int, Never>) -> Void)?>(nil)
        let future = recorder.record {
            SharedFuture<Int, Never> { completion in
                held.withLock { $0 = completion }
                let future = box.withLock { $0 }!
                future.subscribe { _ in held.withLock { $0 }?(.success(8)) }
                completion(.success(7))
            }
        }
        box.withLock { $0 = future }
        let spy = CompletionSpy<Result<Int, any Error>>()
        future.subscribe(spy.completion)
        #expect((try? spy.calls.first?.get()) == 7)
        #expect(spy.calls.count == 1)
        #expect(recorder.misuses == reported([.completionCalledMoreThanOnce]))
        held.withLock { $0 = nil }
        #expect(recorder.misuses == reported([.completionCalledMoreThanOnce]))
    }

    /// A run's completion called on the starter's thread while the operation starts, its block
    /// kept and released later on another thread: nothing reported.
    @Test func aRunsBlockCalledOnTheStarterAndReleasedElsewhereIsNotReported() {
        let recorder = MisuseRecorder()
        let held = SharedLock<(@Sendable (Result<Int, Never>) -> Void)?>(nil)
        let future = recorder.record {
            SharedFuture<Int, Never> { completion in
                held.withLock { $0 = completion }
                completion(.success(3))
            }
        }
        let spy = CompletionSpy<Result<Int, any Error>>()
        future.subscribe(spy.completion)
        #expect((try? spy.calls.first?.get()) == 3)
        releaseOnAnotherThread(held)
        #expect(recorder.misuses.isEmpty)
    }

    /// The same for a `withCompletion` call.
    @Test func aWithCompletionBlockCalledOnTheStarterAndReleasedElsewhereIsNotReported() async throws {
        let recorder = MisuseRecorder()
        let held = SharedLock<(@Sendable (Result<Int, Never>) -> Void)?>(nil)
        let value = try await recorder.record {
            try await withCompletion { (completion: @escaping @Sendable (Result<Int, Never>) -> Void) in
                held.withLock { $0 = completion }
                completion(.success(4))
            }
        }
        #expect(value == 4)
        releaseOnAnotherThread(held)
        #expect(recorder.misuses.isEmpty)
    }

    /// Runs 1 and 2 are abandoned while their completion blocks are kept; run 3 starts. Run 1's
    /// completion, called now, is ignored (not delivered, not reported); run 2's block, released
    /// uncalled now, reports nothing (its run had ended); run 3's completion is delivered.
    @Test func oldRunsCompletersAreIgnoredAcrossARestart() {
        let recorder = MisuseRecorder()
        let blocks = SharedLock<[(@Sendable (Result<Int, Never>) -> Void)?]>([])
        let cancels = SharedLock(0)
        let future = recorder.record {
            SharedFuture<Int, Never> { completion, onCancel in
                blocks.withLock { $0.append(completion) }
                onCancel { cancels.withLock { $0 += 1 } }
            }
        }
        for _ in 0..<2 {
            let left = CompletionSpy<Result<Int, any Error>>()
            future.subscribe(left.completion).cancel()
            #expect(left.calls.count == 1)
        }
        #expect(cancels.withLock { $0 } == 2)
        let live = CompletionSpy<Result<Int, any Error>>()
        let token = future.subscribe(live.completion)
        #expect(blocks.withLock { $0.count } == 3)
        let first = blocks.withLock { blocks in
            defer { blocks[0] = nil }
            return blocks[0]
        }
        first?(.success(1))
        var second = blocks.withLock { blocks in
            defer { blocks[1] = nil }
            return blocks[1]
        }
        #expect(second != nil)
        second = nil  // run 2's block, released uncalled, outside any lock
        #expect(live.calls.isEmpty)
        #expect(recorder.misuses.isEmpty)
        let third = blocks.withLock { blocks in
            defer { blocks[2] = nil }
            return blocks[2]
        }
        third?(.success(3))
        #expect(live.calls.count == 1)
        #expect((try? live.calls.first?.get()) == 3)
        #expect(recorder.misuses.isEmpty)
        withExtendedLifetime((first, third, token)) {}
    }

    /// A run's block released uncalled on another thread after the operation returned: one
    /// report, and the consumer is told `completionNeverCalled` once.
    @Test func aRunsBlockReleasedUncalledOnAnotherThreadIsReportedOnce() {
        let recorder = MisuseRecorder()
        let held = SharedLock<(@Sendable (Result<Int, Never>) -> Void)?>(nil)
        let future = recorder.record {
            SharedFuture<Int, Never> { completion in held.withLock { $0 = completion } }
        }
        let spy = CompletionSpy<Result<Int, any Error>>()
        future.subscribe(spy.completion)
        releaseOnAnotherThread(held)
        #expect(spy.calls.count == 1)
        #expect(recorder.misuses == reported([.completionNeverCalled]))
    }

    /// A run's completion on the starter's thread while the operation starts (kept in the
    /// starter's frame, taken without a lock, the run ended under the future's lock), raced by
    /// a second call and the release of the block on another thread. Only the thread sanitizer
    /// or a wrong count can fail this test.
    @Test func aRunsStarterCompletionRacesASecondCallAndAReleaseElsewhere() {
        let recorder = MisuseRecorder()
        for round in 0..<1_000 {
            let future = recorder.record {
                SharedFuture<Int, Never> { completion in
                    let go = DispatchSemaphore(value: 0)
                    var block: (@Sendable (Result<Int, Never>) -> Void)? = completion
                    let handed = SharedLock(block)
                    block = nil
                    DispatchQueue.global().async {
                        go.wait()
                        let mine = handed.withLock { held in
                            defer { held = nil }
                            return held
                        }
                        mine?(.success(-1))  // usually the second call; then released here
                    }
                    completion(.success(round))
                    go.signal()
                }
            }
            let spy = CompletionSpy<Result<Int, any Error>>()
            future.subscribe(spy.completion)
            #expect((try? spy.calls.first?.get()) == round)
        }
        // Every round's second call is reported, nothing else.
        let misuses = recorder.misuses
        #expect(misuses.allSatisfy { $0 == .completionCalledMoreThanOnce })
    }
}

/// Many threads subscribe, cancel and complete runs of one future at once, with a completion on
/// the starter's thread in some runs, a later one from another thread in others, and blocks
/// released on any thread: every subscriber is told exactly once, and nothing but second calls
/// is reported. For the thread sanitizer above all.
@Suite("FutureCompleter: concurrent runs", .timeLimit(.minutes(1)))
struct FutureCompleterConcurrencyTests {
    @Test func subscribersCancelsAndCompletionsFromManyThreads() {
        let recorder = MisuseRecorder()
        for round in 0..<300 {
            let pending = SharedLock<[@Sendable (Result<Int, Never>) -> Void]>([])
            let starts = SharedLock(0)
            let future = recorder.record {
                SharedFuture<Int, Never> { completion, onCancel in
                    let number = starts.withLock { $0 += 1; return $0 }
                    if number % 3 == 0 {
                        completion(.success(number))  // on the starter's thread, while starting
                    }
                    pending.withLock { $0.append(completion) }
                    onCancel {}
                }
            }
            let told = SharedLock([Int](repeating: 0, count: 64))
            DispatchQueue.concurrentPerform(iterations: 64) { index in
                let token = future.subscribe { _ in told.withLock { $0[index] += 1 } }
                if index % 2 == 0 { token.cancel() }
                let blocks = pending.withLock { blocks in
                    defer { if index % 4 == 1 { blocks = [] } }
                    return blocks
                }
                if index % 8 == 3 { for block in blocks { block(.success(round)) } }
            }
            pending.withLock { $0 = [] }
            // Every block is released by now: whoever still waited was told by a release.
            #expect(told.withLock { $0 }.allSatisfy { $0 == 1 })
        }
        #expect(recorder.misuses.allSatisfy { $0 == .completionCalledMoreThanOnce || $0 == .completionNeverCalled })
    }
}

/// Drops the completion block `held` keeps, on a thread of its own, and waits until it has.
private func releaseOnAnotherThread(_ held: SharedLock<(@Sendable (Result<Int, Never>) -> Void)?>) {
    let done = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
        held.withLock { $0 = nil }
        done.signal()
    }
    done.wait()
}
