import Dispatch
#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import Testing
@_spi(AsyncBridgeInternals) import AsyncBridge
import AsyncBridgeTesting

/// The calling thread as a word (`pthread_t` is an integer on glibc, a pointer on Darwin).
private func currentThreadWord() -> UInt {
    #if canImport(Glibc)
    return UInt(pthread_self())
    #else
    return UInt(bitPattern: pthread_self())
    #endif
}

/// The completer every completion block captures: where and when a completion made while the
/// operation starts is delivered, what is reported first, and that its unlocked paths stay
/// clean under the thread sanitizer.
@Suite("FutureCompleter: completions while the operation starts", .timeLimit(.minutes(1)))
struct FutureCompleterTests {
    /// A SharedFuture's dropped completion block: the misuse is reported before the run's
    /// consumers are told, so that a consumer that got `completionNeverCalled` finds the report
    /// in its recorder.
    @Test func aDroppedBlockIsReportedBeforeTheRunsConsumersAreTold() {
        let recorder = MisuseRecorder()
        let held = SharedLock<(@Sendable (Result<Int, Never>) -> Void)?>(nil)
        let future = recorder.record {
            SharedFuture<Int, Never> { completion in held.withLock { $0 = completion } }
        }
        let seenByConsumer = SharedLock<[Misuse]?>(nil)
        let token = future.subscribe { _ in
            let misuses = recorder.misuses
            seenByConsumer.withLock { $0 = misuses }
        }
        // Release the block outside any lock.
        var block = held.withLock { block in
            defer { block = nil }
            return block
        }
        #expect(block != nil)
        block = nil
        #expect(recorder.misuses == reported([.completionNeverCalled]))
        #expect(seenByConsumer.withLock { $0 } == reported([.completionNeverCalled]))
        withExtendedLifetime(token) {}
    }

    /// `subscribe(deliveringOn: nil)` promises the handler runs "on the thread that completed
    /// the operation". A consumer that listens while the run starts, when the operation's
    /// completion comes on another thread before the operation returns, is told on that thread,
    /// before the completion returns: the run ends at once, not when the starter returns.
    @Test func aListenerIsToldOnTheThreadThatCompletedWhileTheRunStarted() {
        let box = SharedLock<SharedFuture<Int, Never>?>(nil)
        let joinedToken = SharedLock<CancellationToken?>(nil)
        let completingThread = SharedLock<UInt?>(nil)
        let toldOnThread = SharedLock<UInt?>(nil)
        let toldBeforeCompletionReturned = SharedLock<Bool?>(nil)
        let future = SharedFuture<Int, Never> { completion in
            // A second consumer joins the run and listens (here, on the starter's thread).
            let future = box.withLock { $0 }!
            let token = future.subscribe { _ in toldOnThread.withLock { $0 = currentThreadWord() } }
            joinedToken.withLock { $0 = token }
            // The API completes on a thread of its own before it returns.
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                completingThread.withLock { $0 = currentThreadWord() }
                completion(.success(1))
                let told = toldOnThread.withLock { $0 } != nil
                toldBeforeCompletionReturned.withLock { $0 = told }
                done.signal()
            }
            done.wait()
        }
        box.withLock { $0 = future }
        let starter = future.subscribe { _ in }
        #expect(toldOnThread.withLock { $0 } != nil)
        #expect(toldBeforeCompletionReturned.withLock { $0 } == true)
        #expect(toldOnThread.withLock { $0 } == completingThread.withLock { $0 })
        #expect(toldOnThread.withLock { $0 } != currentThreadWord())
        withExtendedLifetime((starter, joinedToken)) {}
    }

    /// The same on the starter's own thread: a completion called inside the operation, while
    /// it starts, ends the run at once, so a consumer that joined the run is told before the
    /// completion returns, not once the operation returns.
    @Test func aListenerIsToldBeforeACompletionOnTheStartersThreadReturns() {
        let box = SharedLock<SharedFuture<Int, Never>?>(nil)
        let joinedToken = SharedLock<CancellationToken?>(nil)
        let told = SharedLock<[Int]>([])
        let toldWhenCompletionReturned = SharedLock<[Int]?>(nil)
        let future = SharedFuture<Int, Never> { completion in
            let future = box.withLock { $0 }!
            let token = future.subscribe { result in
                if case .success(let value) = result { told.withLock { $0.append(value) } }
            }
            joinedToken.withLock { $0 = token }
            completion(.success(7))
            let seen = told.withLock { $0 }
            toldWhenCompletionReturned.withLock { $0 = seen }
        }
        box.withLock { $0 = future }
        let starter = future.subscribe { _ in }
        #expect(toldWhenCompletionReturned.withLock { $0 } == [7])
        #expect(told.withLock { $0 } == [7])
        withExtendedLifetime((starter, joinedToken)) {}
    }

    /// A completion on the starter's thread, which the starter takes without the lock, and a
    /// second call on another thread at the same time, which takes the lock: the starter's
    /// unlocked accesses must not overlap the state the second call changes. Only the thread
    /// sanitizer (CI step 4) can fail this test.
    @Test func aSecondCallFromAnotherThreadRacesTheStartersUnlockedTake() async throws {
        for round in 0..<2_000 {
            let value = try await withCompletion { (completion: @escaping @Sendable (Result<Int, Never>) -> Void) in
                let go = DispatchSemaphore(value: 0)
                DispatchQueue.global().async {
                    go.wait()
                    completion(.success(-1))  // usually the second call
                }
                completion(.success(round))  // on the starter's thread, while starting
                go.signal()
            }
            #expect(value == round)
        }
    }
}

/// What a completion block keeps once it has been called: nothing of the run. APIs often keep
/// their block after calling it, until they are torn down; a block that kept the future would
/// keep its value too, and a value (or an API the operation captures) that keeps the block would
/// close a cycle that is never freed.
@Suite("FutureCompleter: a called block keeps nothing", .timeLimit(.minutes(1)))
struct FutureCompleterLifetimeTests {
    final class Session: Sendable {
        let kept = SharedLock<(@Sendable (Result<Session, Never>) -> Void)?>(nil)

        /// Keeps `completion`, then calls it with itself.
        func start(_ completion: @escaping @Sendable (Result<Session, Never>) -> Void) {
            kept.withLock { $0 = completion }
            completion(.success(self))
        }
    }

    @Test(arguments: [false, true])
    func aBlockTheAPIKeepsHoldsNeitherTheFutureNorItsValue(completesWhileStarting: Bool) {
        let held = SharedLock<(@Sendable (Result<Tracked, Never>) -> Void)?>(nil)
        weak var weakValue: Tracked?
        weak var weakCapture: Tracked?
        do {
            let capture = Tracked()
            weakCapture = capture
            let value = Tracked()
            weakValue = value
            let future = SharedFuture<Tracked, Never> { completion in
                _ = capture
                held.withLock { $0 = completion }
                if completesWhileStarting { completion(.success(value)) }
            }
            let token = future.subscribe { (_: Result<Tracked, any Error>) in }
            if !completesWhileStarting { held.withLock { $0 }?(.success(value)) }
            token.cancel()
        }
        #expect(held.withLock { $0 } != nil)
        #expect(weakValue == nil, "the API's kept block holds the run's value")
        #expect(weakCapture == nil, "the API's kept block holds the future's operation")
        held.withLock { $0 = nil }
    }

    @Test func aValueThatKeepsItsOwnBlockIsReleased() async throws {
        weak var weakSession: Session?
        do {
            let future = SharedFuture<Session, Never> { completion in Session().start(completion) }
            weakSession = try await future.value
        }
        #expect(weakSession == nil, "value → kept block → completer → future → value")
    }

    /// A SharedFuture's run completer called twice at once, from two threads: one call ends the
    /// run, the other is reported. Only the thread sanitizer (CI step 4) can fail the race part.
    @Test func twoCallsAtOnceEndTheRunOnceAndReportTheOther() {
        for round in 0..<500 {
            let recorder = MisuseRecorder()
            let held = SharedLock<(@Sendable (Result<Int, Never>) -> Void)?>(nil)
            let future = recorder.record {
                SharedFuture<Int, Never> { completion in held.withLock { $0 = completion } }
            }
            let values = SharedLock<[Int]>([])
            let token = future.subscribe { result in values.withLock { $0.append((try? result.get()) ?? -1) } }
            let block = held.withLock { block in
                defer { block = nil }
                return block
            }
            let done = DispatchGroup()
            for call in 0..<2 {
                DispatchQueue.global().async(group: done) { block?(.success(round * 2 + call)) }
            }
            done.wait()
            #expect(values.withLock { $0.count } == 1)
            #expect(recorder.misuses == reported([.completionCalledMoreThanOnce]))
            withExtendedLifetime(token) {}
        }
    }
}
