import Dispatch
import Testing
@_spi(AsyncBridgeInternals) import AsyncBridge
import AsyncBridgeTesting

/// A `DispatchSource` timer as a `Flow` of tick numbers: the timer is created and resumed when a
/// subscription starts, and cancelled when it ends (`cancelled` records that).
func timerTicks(every interval: DispatchTimeInterval, cancelled: CompletionSpy<Void>) -> Flow<Int, Never> {
    Flow.create { emitter in
        let queue = DispatchQueue(label: "AsyncBridgeTests.timer")
        // Dispatch sources are thread-safe, but Dispatch does not mark them Sendable.
        nonisolated(unsafe) let timer = DispatchSource.makeTimerSource(queue: queue)
        let ticks = SharedLock(0)
        timer.setEventHandler {
            emitter.send(ticks.withLock { count in count += 1; return count })
        }
        timer.setCancelHandler { cancelled.record(()) }
        timer.schedule(deadline: .now(), repeating: interval)
        timer.resume()
        emitter.onCancel { timer.cancel() }
    }
}

@Suite("DispatchSource timer → Flow", .timeLimit(.minutes(1)))
struct DispatchSourceTimerBridgeTests {
    @Test func ticksArriveInOrderAndPrefixCancelsTheTimer() async {
        let cancelled = CompletionSpy<Void>()
        let recorder = FlowRecorder(timerTicks(every: .milliseconds(1), cancelled: cancelled).prefix(3))
        await recorder.waitForCompletion()
        #expect(recorder.events == [.value(1), .value(2), .value(3), .finished])
        await cancelled.firstCall()
        #expect(cancelled.callCount == 1)
    }

    @Test func cancellingTheSubscriptionCancelsTheTimerOnce() async {
        let cancelled = CompletionSpy<Void>()
        let recorder = FlowRecorder(timerTicks(every: .milliseconds(1), cancelled: cancelled))
        await recorder.waitForValues(2)
        recorder.cancel()
        await cancelled.firstCall()
        #expect(cancelled.callCount == 1)
        #expect(!recorder.isCompleted)
        #expect(recorder.values == Array(1...recorder.values.count))
    }

    @Test func eachSubscriptionHasItsOwnTimer() async {
        let cancelled = CompletionSpy<Void>()
        let ticks = timerTicks(every: .milliseconds(1), cancelled: cancelled).prefix(2)
        let first = FlowRecorder(ticks)
        let second = FlowRecorder(ticks)
        await first.waitForCompletion()
        await second.waitForCompletion()
        #expect(first.values == [1, 2])
        #expect(second.values == [1, 2])
        while cancelled.callCount < 2 { await Task.yield() }
    }
}
