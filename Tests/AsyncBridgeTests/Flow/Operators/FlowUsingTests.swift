import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("Flow.using", .timeLimit(.minutes(1)))
struct FlowUsingTests {
    /// A resource that logs its life into a shared log.
    final class Resource: Sendable {
        let id: Int
        let log: Box<[String]>
        private let isReleased = Box(false)
        init(_ id: Int, log: Box<[String]>) {
            self.id = id
            self.log = log
            log.mutate { $0.append("made \(id)") }
        }
        var released: Bool { isReleased.value }
        func release() {
            isReleased.value = true
            log.mutate { $0.append("released \(id)") }
        }
    }

    /// `Flow.using` over `source`, logging the resource's life and the events in order.
    static func using(_ source: Flow<Int, TestError>, log: Box<[String]>, makes made: AtomicCounter = AtomicCounter()) -> Flow<Int, TestError> {
        Flow<Int, TestError>.using {
            made.increment()
            return Resource(made.value, log: log)
        } release: { resource in
            resource.release()
        } flow: { resource in
            source.map { $0 + resource.id * 100 }
        }
    }

    @Test(arguments: ["finish", "failure"])
    func releasesOnceAfterTheCompletionWasDelivered(_ ending: String) {
        let log = Box<[String]>([])
        let source = ManualFlow<Int>()
        let recorder = FlowRecorder(Self.using(source.flow, log: log)
            .handleEvents(onCompletion: { _ in log.mutate { $0.append("completion delivered") } }))
        source.send(1)
        #expect(log.value == ["made 1"])
        if ending == "finish" { source.finish() } else { source.fail(TestError(code: 3)) }
        #expect(recorder.events == [.value(101), ending == "finish" ? .finished : .failure(TestError(code: 3))])
        #expect(log.value == ["made 1", "completion delivered", "released 1"])
        recorder.cancel()
        #expect(log.value.count == 3, "released once")
        #expect(source.cancels.value == 0)
    }

    @Test func releasesOnceOnCancellationAfterTheSourceWasCancelled() {
        let log = Box<[String]>([])
        let source = ManualFlow<Int>()
        let recorder = FlowRecorder(Self.using(source.flow.handleEvents(onCancel: { log.mutate { $0.append("source cancelled") } }), log: log))
        source.send(1)
        recorder.cancel()
        recorder.cancel()
        source.send(2)
        #expect(recorder.events == [.value(101)])
        #expect(log.value == ["made 1", "source cancelled", "released 1"])
        #expect(source.cancels.value == 1)
    }

    @Test func eachSubscriptionMakesAndReleasesItsOwnResource() {
        let log = Box<[String]>([])
        let made = AtomicCounter()
        let flow = Self.using(.sequence([1]), log: log, makes: made)
        #expect(FlowRecorder(flow).events == [.value(101), .finished])
        #expect(FlowRecorder(flow).events == [.value(201), .finished])
        #expect(log.value == ["made 1", "released 1", "made 2", "released 2"])
    }

    @Test func aResourceThatCannotBeMadeFailsTheFlowTyped() {
        let built = AtomicCounter()
        let flow = Flow<Int, TestError>.using { () throws(TestError) -> Int in
            throw TestError(code: 7)
        } release: { _ in
            Issue.record("nothing to release")
        } flow: { _ in
            built.increment()
            return .just(1)
        }
        #expect(FlowRecorder(flow).events == [.failure(TestError(code: 7))])
        #expect(built.value == 0)
    }

    @Test func anEndDuringTheStartReleasesOnlyOnceTheStartHasReturned() {
        let log = Box<[String]>([])
        let flow = Flow<Int, TestError>.using {
            Resource(1, log: log)
        } release: { resource in
            resource.release()
        } flow: { resource in
            Flow.create { emitter in
                emitter.send(1)  // the subscriber below takes one value and cancels
                log.mutate { $0.append(resource.released ? "used after its release" : "still held after the send") }
            }
        }
        #expect(FlowRecorder(flow.prefix(1)).events == [.value(1), .finished])
        #expect(log.value == ["made 1", "still held after the send", "released 1"])
        let finishing = Flow<Int, TestError>.using { Resource(2, log: log) } release: { $0.release() } flow: { resource in
            Flow.create { emitter in
                emitter.finish()
                log.mutate { $0.append(resource.released ? "used after its release" : "still held after the finish") }
            }
        }
        #expect(FlowRecorder(finishing).events == [.finished])
        #expect(log.value.suffix(3) == ["made 2", "still held after the finish", "released 2"])
    }

    @Test func theReleaseRunsOutsideTheLibrarysLocks() {
        // The release cancels the subscription, sends to the source's subject and subscribes
        // to the same flow again: under one of the locks involved, it would deadlock.
        let subject = LiveSubject<Int, TestError>()
        let token = Box<CancellationToken?>(nil)
        let again = Box<FlowRecorder<Int, TestError>?>(nil)
        let releases = AtomicCounter()
        let flow = Box<Flow<Int, TestError>?>(nil)
        flow.value = Flow<Int, TestError>.using { 0 } release: { _ in
            releases.increment()
            token.value?.cancel()
            subject.send(99)
            if releases.value == 1, let flow = flow.value { again.value = FlowRecorder(flow) }
        } flow: { _ in subject.flow }
        let received = Box<[Int]>([])
        token.value = flow.value!.subscribe(onValue: { value in received.mutate { $0.append(value) } }, onCompletion: { _ in })
        subject.send(1)
        token.value?.cancel()
        #expect(releases.value == 1)
        #expect(received.value == [1])
        #expect(again.value?.values == [], "the new subscription came after the release's send")
        subject.finish()
        #expect(again.value?.events == [.finished])
        #expect(releases.value == 2)
        flow.value = nil
    }

    @Test(arguments: [false, true])
    func releasesItsClosuresAndTheResource(cancelling: Bool) {
        let source = ManualFlow<Int>()
        let ending = cancelling ? "cancellation" : "completion"
        expectReleased("using's closures after \(ending)") { tracked in
            expectReleased("using's resource after \(ending)") { resource in
                let flow = Flow<Int, TestError>.using { resource } release: { _ in _ = tracked } flow: { _ in
                    source.flow.map { _ = tracked; return $0 }
                }
                let recorder = FlowRecorder(flow)
                source.send(1)
                if cancelling { recorder.cancel() } else { source.finish() }
                #expect(recorder.events.first == .value(1))
            }
        }
    }
}
