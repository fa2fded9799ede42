import Testing
import AsyncBridge
import AsyncBridgeTesting

/// Nothing after a cancellation made from a handler, for operators that subscribe a flow once the
/// subscriber holds its token (collect, delaySubscription, ifEmpty, retry) or that complete at
/// the value that ends them (sample, zip): each test failed before its fix.
@Suite("Flow: nothing after a cancellation from a handler (collect, delaySubscription, ifEmpty, retry, sample, zip)", .timeLimit(.minutes(1)))
struct CancellationInHandlerTests {
    @Test func collectCountSendsNothingAfterASubscriberCancelsOnTheLastArray() {
        let source = ManualFlow<Int>()
        let events = eventsCancellingOnFirstValue(source.flow.collect(2)) {
            source.send(1)
            source.finish()
        }
        #expect(events == [.value([1])], "the finish came after the cancellation had returned")
    }

    @Test func retryWhenStopsASynchronousAttemptWhenTheSubscriberWantsNoMore() {
        let subscriptions = AtomicCounter()
        let produced = AtomicCounter()
        let source = Flow<Int, TestError>.deferred {
            subscriptions.increment()
            guard subscriptions.value > 1 else { return .fail(TestError()) }
            return Flow.sequence(0..<1_000).handleEvents(onValue: { _ in produced.increment() })
        }
        let recorder = FlowRecorder(source.retry(when: FlowRetryWhenTests.atOnce).prefix(3))
        #expect(recorder.events == [.value(0), .value(1), .value(2), .finished])
        #expect(produced.value == 3, "the retried attempt ran to its end, its values queued")
    }

    @Test func delaySubscriptionSendsNothingAfterASubscriberCancelsFromItsHandler() async {
        let clock = ManualClock()
        let loopEnded = CompletionSpy<Void>()
        let events = Box<[FlowEvent<Int, Never>]>([])
        let token = Box<CancellationToken?>(nil)
        token.value = Flow<Int, Never>.sequence(OneTwo(loopEnded: loopEnded))
            .delaySubscription(for: .seconds(1), clock: clock)
            .subscribe { event in
                events.mutate { $0.append(event) }
                if case .value = event { token.value?.cancel() }
            }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))  // the synchronous source runs on the timer's task, the token set
        await loopEnded.firstCall()
        #expect(events.value == [.value(1)], "2 came after the cancellation had returned")
    }

    @Test func ifEmptySwitchToSendsNothingAfterASubscriberCancelsFromItsHandler() {
        let source = ManualFlow<Int>()
        let events = eventsCancellingOnFirstValue(source.flow.ifEmpty(switchTo: .sequence([1, 2]))) {
            source.finish()  // empty: the synchronous other runs now, the token set
        }
        #expect(events == [.value(1)], "2 and the finish came after the cancellation had returned")
    }

    @Test func retryResubscribingASynchronousSourceSendsNothingAfterASubscriberCancelsFromItsHandler() {
        let first = ManualFlow<Int>()
        let subscriptions = AtomicCounter()
        let source = Flow<Int, TestError>.deferred {
            subscriptions.increment()
            return subscriptions.value == 1 ? first.flow : .sequence([1, 2])
        }
        let events = eventsCancellingOnFirstValue(source.retry()) {
            first.fail()  // the synchronous second attempt runs now, the token set
        }
        #expect(events == [.value(1)], "2 came after the cancellation had returned")
    }

    /// A subscriber that cancels itself in the handler of the last value must get nothing
    /// more. Before the fix, sample (its last sample) and the zips (a tuple that uses up a
    /// finished source) completed it after its cancellation had returned.
    @Test(arguments: ["sample", "zip2", "zip3", "zipCollection"])
    func aSubscriberCancellingItselfAtTheLastValueIsNotCompletedAfterwards(operator name: String) {
        let a = ManualFlow<String>(), b = ManualFlow<String>(), c = ManualFlow<String>()
        let flow: Flow<String, TestError> = switch name {
        case "sample": a.flow.sample(b.flow)
        case "zip2": a.flow.zip(b.flow) { $0 + $1 }
        case "zip3": a.flow.zip(b.flow, c.flow) { $0 + $1 + $2 }
        default: Flow.zip([a.flow, b.flow, c.flow]).map { $0.joined() }
        }
        let events = eventsCancellingOnFirstValue(flow) {
            a.send("a"); a.finish()
            b.send("b")
            if name == "zip3" || name == "zipCollection" { c.send("c") }
        }
        #expect(events.count == 1, "only the value: \(events)")
    }
}

/// 1, 2: tells `loopEnded` when it is asked for a value after 2 (so 2 has been handled), or
/// when the loop over it is over (its iterator is gone), whichever comes first.
struct OneTwo: Sequence, Sendable {
    let loopEnded: CompletionSpy<Void>

    final class Iterator: IteratorProtocol {
        let loopEnded: CompletionSpy<Void>
        var count = 0
        var told = false

        init(_ loopEnded: CompletionSpy<Void>) { self.loopEnded = loopEnded }

        func next() -> Int? {
            count += 1
            guard count <= 2 else { tell(); return nil }
            return count
        }

        func tell() {
            if !told { told = true; loopEnded.record(()) }
        }

        deinit { tell() }
    }

    func makeIterator() -> Iterator { Iterator(loopEnded) }
}
