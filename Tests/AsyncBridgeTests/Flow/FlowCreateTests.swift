import Dispatch
import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("Flow.create", .timeLimit(.minutes(1)))
struct FlowCreateTests {
    @Test func deliveriesFromEightThreadsAreSerialisedAndNoneIsLost() async {
        let inHandler = AtomicCounter()
        let overlaps = AtomicCounter()
        let emitter = Box<FlowEmitter<Int, Never>?>(nil)
        let recorder = Box<[Int]>([])
        let token = Flow<Int, Never>.create { emitter.value = $0 }.subscribe(onValue: { value in
            inHandler.increment()
            if inHandler.value > 1 { overlaps.increment() }
            recorder.value.append(value)
            inHandler.decrement()
        }, onCompletion: { _ in })
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<1_000 { emitter.value?.send(thread * 1_000 + index) }
        }
        #expect(overlaps.value == 0)
        #expect(recorder.value.count == 8_000)
        #expect(Set(recorder.value).count == 8_000)
        token.cancel()
    }

    @Test func theCancelActionRunsOnceAndNothingArrivesAfterCancel() {
        let cancels = AtomicCounter()
        let emitter = Box<FlowEmitter<Int, Never>?>(nil)
        let recorder = FlowRecorder(Flow<Int, Never>.create { sink in
            emitter.value = sink
            sink.onCancel { cancels.increment() }
        })
        emitter.value?.send(1)
        recorder.cancel()
        recorder.cancel()
        emitter.value?.send(2)
        emitter.value?.finish()
        #expect(recorder.events == [.value(1)])
        #expect(cancels.value == 1)
    }

    /// Calls `onRelease` from its deinitialiser.
    final class ReleaseHook: Sendable {
        let onRelease: @Sendable () -> Void
        init(_ onRelease: @escaping @Sendable () -> Void) { self.onRelease = onRelease }
        deinit { onRelease() }
    }

    struct Message: Sendable {
        let text: String
        var hook: ReleaseHook? = nil
    }

    @Test func aQueuedValueWhoseReleaseSendsAgainIsServed() {
        let emitter = Box<FlowEmitter<Message, Never>?>(nil)
        let received = Box<[String]>([])
        let token = Flow<Message, Never>.create { emitter.value = $0 }.subscribe(onValue: { message in
            received.value.append(message.text)
            if message.text == "first" {
                // Queued behind this delivery; released once delivered, unlocked.
                emitter.value?.send(Message(text: "hooked", hook: ReleaseHook { emitter.value?.send(Message(text: "from deinit")) }))
            }
        }, onCompletion: { _ in })
        emitter.value?.send(Message(text: "first"))
        #expect(received.value == ["first", "hooked", "from deinit"])
        token.cancel()
    }

    @Test func cancellingDuringADeliveryOnAnotherThreadReleasesTheSubscriberOnceItReturns() async {
        let emitter = Box<FlowEmitter<Int, Never>?>(nil)
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let sent = DispatchSemaphore(value: 0)
        weak var handlerCapture: Tracked?
        let token: CancellationToken
        do {
            let forHandler = Tracked()
            handlerCapture = forHandler
            token = Flow<Int, Never>.create { emitter.value = $0 }.subscribe(onValue: { _ in
                _ = forHandler
                entered.signal()
                proceed.wait()
            }, onCompletion: { _ in })
        }
        DispatchQueue(label: "sender").async {
            emitter.value?.send(1)
            sent.signal()
        }
        await wait(for: entered)
        token.cancel()
        #expect(handlerCapture != nil, "released under the running handler")
        proceed.signal()
        await wait(for: sent)
        #expect(handlerCapture == nil, "kept after the delivery returned")
        emitter.value?.send(2)  // ignored: nothing to deliver to
    }

    /// Issue 10: the cancel action ran before the emitter was closed, so what it sent (a
    /// report of the cancellation, say) reached the subscriber that was cancelling.
    @Test func whatTheCancelActionSendsIsIgnored() {
        let recorder = FlowRecorder(Flow<Int, TestError>.create { emitter in
            emitter.send(1)
            emitter.onCancel {
                emitter.send(2)
                emitter.fail(TestError(code: 99))
            }
        })
        recorder.cancel()
        #expect(recorder.events == [.value(1)])
    }

    @Test func theCancelActionNeverRunsAfterCompletion() {
        let cancels = AtomicCounter()
        let recorder = FlowRecorder(Flow<Int, Never>.create { emitter in
            emitter.send(1)
            emitter.finish()
            emitter.onCancel { cancels.increment() }
        })
        recorder.cancel()
        #expect(recorder.events == [.value(1), .finished])
        #expect(cancels.value == 0)
    }

    @Test func aCancelActionRegisteredOnceCancelledRunsAtOnceAndEachRegisteredActionRunsOnce() {
        let log = Box<[String]>([])
        let emitterBox = Box<FlowEmitter<Int, Never>?>(nil)
        let recorder = FlowRecorder(Flow<Int, Never>.create { emitter in
            emitterBox.value = emitter
            emitter.onCancel { log.value.append("first") }
            emitter.onCancel { log.value.append("second") }
        })
        recorder.cancel()
        #expect(log.value.sorted() == ["first", "second"])
        emitterBox.value?.onCancel { log.value.append("late") }
        #expect(log.value.count == 3 && log.value.last == "late", "registered after the cancellation: runs at once")
        recorder.cancel()
        #expect(log.value.count == 3, "nothing runs twice")
    }

    @Test func aHandlerThatSendsAgainReentrantlyIsServedInOrder() {
        let emitter = Box<FlowEmitter<Int, Never>?>(nil)
        let seen = Box<[Int]>([])
        _ = Flow<Int, Never>.create { emitter.value = $0 }.subscribe(onValue: { value in
            seen.value.append(value)
            if value < 3 { emitter.value?.send(value + 1) }  // re-entrant send
        }, onCompletion: { _ in })
        emitter.value?.send(1)
        #expect(seen.value == [1, 2, 3])
    }

    @Test func aHandlerThatCancelsItselfGetsNothingMore() {
        let emitter = Box<FlowEmitter<Int, Never>?>(nil)
        let token = Box<CancellationToken?>(nil)
        let seen = Box<[Int]>([])
        token.value = Flow<Int, Never>.create { emitter.value = $0 }.subscribe(onValue: { value in
            seen.value.append(value)
            token.value?.cancel()
        }, onCompletion: { _ in })
        emitter.value?.send(1)
        emitter.value?.send(2)
        #expect(seen.value == [1])
    }

    @Test func aResultEndsTheFlowWithOneValueOrTheFailure() {
        let success = FlowRecorder(Flow<Int, TestError>.create { $0.sendLast(.success(4)) })
        let failure = FlowRecorder(Flow<Int, TestError>.create { $0.sendLast(.failure(TestError(code: 4))) })
        #expect(success.events == [.value(4), .finished])
        #expect(failure.events == [.failure(TestError(code: 4))])
    }
}
