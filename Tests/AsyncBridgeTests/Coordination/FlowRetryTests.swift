import Dispatch
import Testing
@_spi(AsyncBridgeInternals) import AsyncBridge
import AsyncBridgeTesting

/// A cold flow whose every subscription hands its emitter to the test, which can wait for the
/// n-th subscription.
final class Resubscribable<Element: Sendable>: Sendable {
    private struct State {
        var emitters: [FlowEmitter<Element, TestError>] = []
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = SharedLock(State())
    let cancels = AtomicCounter()

    var flow: Flow<Element, TestError> {
        Flow.create { [state, cancels] emitter in
            let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.emitters.append(emitter)
                let ready = state.waiters.filter { $0.count <= state.emitters.count }
                state.waiters.removeAll { $0.count <= state.emitters.count }
                return ready.map(\.continuation)
            }
            for waiter in ready { waiter.resume() }
            emitter.onCancel { cancels.increment() }
        }
    }

    var subscriptions: Int { state.withLock { $0.emitters.count } }

    /// The emitter of the latest subscription.
    var latest: FlowEmitter<Element, TestError>? { state.withLock { $0.emitters.last } }

    func waitForSubscriptions(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Bool in
                if state.emitters.count >= count { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }
}

@Suite("Flow.retry", .timeLimit(.minutes(1)))
struct FlowRetryTests {
    @Test func maxAttemptsCountsSubscriptionsTheFirstIncluded() {
        let subscriptions = AtomicCounter()
        let source = Flow<String, TestError>.deferred {
            subscriptions.increment()
            return marbleFlow("a#", failure: TestError(code: subscriptions.value))
        }
        let recorder = FlowRecorder(source.retry(maxAttempts: 3))
        #expect(recorder.events == marbles("aaa#", failure: TestError(code: 3)))
        #expect(subscriptions.value == 3, "RxSwift's count: three subscriptions, not Combine's four")
        #expect(FlowRecorder(source.retry(maxAttempts: 1)).events == marbles("a#", failure: TestError(code: 4)))
    }

    @Test func valuesAlreadyDeliveredStayDeliveredAndAFinishEndsTheRetries() {
        let source = Resubscribable<Int>()
        let recorder = FlowRecorder(source.flow.retry(maxAttempts: 5))
        source.latest?.send(1)
        source.latest?.send(2)
        source.latest?.fail(TestError())
        #expect(source.subscriptions == 2)
        source.latest?.send(3)
        source.latest?.finish()
        #expect(recorder.events == [.value(1), .value(2), .value(3), .finished])
        #expect(source.subscriptions == 2 && source.cancels.value == 0)
    }

    @Test func shouldRetryTurningAnErrorDownDeliversItTyped() {
        let source = Resubscribable<Int>()
        let recorder = FlowRecorder(source.flow.retry(maxAttempts: 5) { $0.code != 2 })
        source.latest?.fail(TestError(code: 1))
        source.latest?.fail(TestError(code: 2))
        #expect(recorder.events == [.failure(TestError(code: 2))])
        #expect(source.subscriptions == 2)
    }

    @Test func resubscribesAfterTheBackoffOnTheClock() async {
        let clock = ManualClock()
        let source = Resubscribable<Int>()
        let recorder = FlowRecorder(source.flow.retry(.exponential(initial: .seconds(1)), maxAttempts: 3, clock: clock))
        source.latest?.fail(TestError())
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(999))
        #expect(source.subscriptions == 1 && clock.sleeperCount == 1)
        clock.advance(by: .milliseconds(1))
        await source.waitForSubscriptions(2)
        source.latest?.send(7)
        source.latest?.fail(TestError(code: 2))
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(1_999))
        #expect(source.subscriptions == 2, "the second wait is twice the first")
        clock.advance(by: .milliseconds(1))
        await source.waitForSubscriptions(3)
        source.latest?.fail(TestError(code: 3))
        #expect(recorder.events == [.value(7), .failure(TestError(code: 3))])
        #expect(clock.sleeperCount == 0)
    }

    @Test func cancellingDuringTheBackoffEndsTheWaitAndStartsNoAttempt() async {
        let clock = ManualClock()
        let source = Resubscribable<Int>()
        let recorder = FlowRecorder(source.flow.retry(.fixed(.seconds(1)), maxAttempts: 3, clock: clock))
        source.latest?.fail(TestError())
        await clock.waitForSleepers(1)
        recorder.cancel()
        #expect(clock.sleeperCount == 0, "the timer's sleep is cancelled")
        clock.advance(by: .seconds(5))
        #expect(source.subscriptions == 1)
        #expect(recorder.events.isEmpty)
        #expect(source.cancels.value == 0, "the failed attempt had ended: nothing to cancel")
    }

    @Test func cancellingDuringAnAttemptCancelsItAndStartsNoOther() {
        let source = Resubscribable<Int>()
        let recorder = FlowRecorder(source.flow.retry(maxAttempts: 3))
        source.latest?.fail(TestError())
        source.latest?.send(1)
        recorder.cancel()
        #expect(source.cancels.value == 1)
        source.latest?.fail(TestError())
        #expect(source.subscriptions == 2)
        #expect(recorder.events == [.value(1)])
    }

    @Test func aSubscriberThatStopsCancelsTheAttempt() {
        let source = Resubscribable<Int>()
        let recorder = FlowRecorder(source.flow.retry(maxAttempts: 3).prefix(2))
        source.latest?.send(1)
        source.latest?.fail(TestError())
        source.latest?.send(2)
        #expect(recorder.events == [.value(1), .value(2), .finished])
        #expect(source.cancels.value == 1 && source.subscriptions == 2)
    }

    @Test func synchronousFailuresRetriedAtOnceRunInConstantStackDepth() {
        let subscriptions = AtomicCounter()
        let source = Flow<Int, TestError>.deferred {
            subscriptions.increment()
            return .fail(TestError())
        }
        let recorder = FlowRecorder(source.retry(maxAttempts: 100_000))
        #expect(recorder.events == [.failure(TestError())])
        #expect(subscriptions.value == 100_000)
    }

    @Test func synchronousFailuresWithABackoffWaitBetweenAttempts() async {
        let clock = ManualClock()
        let subscriptions = AtomicCounter()
        let source = Flow<Int, TestError>.deferred {
            subscriptions.increment()
            return .fail(TestError(code: subscriptions.value))
        }
        let recorder = FlowRecorder(source.retry(.fixed(.seconds(1)), maxAttempts: 2, clock: clock))
        await clock.waitForSleepers(1)
        #expect(subscriptions.value == 1)
        clock.advance(by: .seconds(1))
        await recorder.waitForCompletion()
        #expect(recorder.events == [.failure(TestError(code: 2))])
    }

    @Test func releasesItsClosuresAfterCompletionAndAfterCancellationDuringTheBackoff() async {
        let clock = ManualClock()
        weak var captured: Tracked?
        let source = Resubscribable<Int>()
        do {
            let tracked = Tracked()
            captured = tracked
            let recorder = FlowRecorder(source.flow.map { _ = tracked; return $0 }
                .retry(.fixed(.seconds(1)), maxAttempts: 3, clock: clock) { _ in _ = tracked; return true })
            source.latest?.fail(TestError())
            await clock.waitForSleepers(1)
            recorder.cancel()
        }
        #expect(captured == nil, "cancelled during the wait: nothing is kept, even before the timer's task ends")
        do {
            let tracked = Tracked()
            captured = tracked
            let recorder = FlowRecorder(source.flow.map { _ = tracked; return $0 }
                .retry(maxAttempts: 3) { _ in _ = tracked; return true })
            source.latest?.fail(TestError())
            source.latest?.finish()
            #expect(recorder.events == [.finished])
        }
        #expect(captured == nil, "after completion")
    }

    @Test func aShouldRetryWhoseReleaseCancelsTheSubscriptionDoesNotDeadlock() {
        // Once the flow itself is gone, the retry's context is what holds `shouldRetry`: the
        // end of the run releases it, and with it an object whose deinit cancels the
        // subscription, which reaches the retry again. Released under the retry's lock, it
        // deadlocked; the finish runs on a thread of its own so that a deadlock ends the test.
        let source = Resubscribable<Int>()
        let recorder = Box<FlowRecorder<Int, TestError>?>(nil)
        do {
            let hook = ReleaseHook { recorder.value?.cancel() }
            recorder.value = FlowRecorder(source.flow.retry(maxAttempts: 3) { _ in _ = hook; return true })
        }
        source.latest?.fail(TestError())
        #expect(source.subscriptions == 2)
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue(label: "finisher").async {
            source.latest?.finish()
            finished.signal()
        }
        #expect(finished.wait(timeout: .now() + 10) == .success, "the release of the context deadlocked")
        #expect(recorder.value?.events == [.finished], "delivered, then the context is released")
    }

    @Test func cancellationRacingTheBackoffTimerStartsNoAttemptAfterIt() async {
        for _ in 0..<1_000 {
            let clock = ManualClock()
            let subscriptions = AtomicCounter()
            let source = Flow<Int, TestError>.deferred {
                subscriptions.increment()
                return subscriptions.value == 1 ? .fail(TestError()) : .sequence([1, 2, 3])
            }
            let recorder = FlowRecorder(source.retry(.fixed(.seconds(1)), maxAttempts: 2, clock: clock))
            await clock.waitForSleepers(1)
            async let advanced: Void = clock.advance(by: .seconds(1))
            recorder.cancel()
            await advanced
            // The timer may have started the second attempt before the cancellation (an event
            // in flight): then its synchronous source may still be sending. Never anything else,
            // never twice.
            let all: [FlowEvent<Int, TestError>] = [.value(1), .value(2), .value(3), .finished]
            #expect((0...4).map { Array(all.prefix($0)) }.contains(recorder.events))
            #expect(subscriptions.value <= 2)
        }
    }
}
