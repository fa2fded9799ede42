import Dispatch
import Testing
import AsyncBridge
import AsyncBridgeTesting

/// A `ManualFlow` that also counts its runs (one per connection).
private final class CountedSource: Sendable {
    let manual = ManualFlow<String>()
    let runs = AtomicCounter()
    var flow: Flow<String, TestError> { Flow.deferred { [manual, runs] in runs.increment(); return manual.flow } }
    var cancels: Int { manual.cancels.value }
    func send(_ value: String) { manual.send(value) }
    func finish() { manual.finish() }
}

@Suite("Flow: publish, replay, connect, refCount", .timeLimit(.minutes(1)))
struct ConnectableFlowTests {
    @Test func valuesReachSubscribersOnlyAfterConnectThroughOneRun() {
        let runs = AtomicCounter()
        let connectable = Flow<String, TestError>.deferred { runs.increment(); return marbleFlow("ab|") }.publish()
        let first = FlowRecorder(connectable.flow)
        let second = FlowRecorder(connectable.flow.map { $0.uppercased() })
        #expect(runs.value == 0 && first.events == [] && second.events == [])
        connectable.connect().cancel()
        #expect(runs.value == 1)
        #expect(first.events == marbles("ab|"))
        #expect(second.events == marbles("AB|"))
    }

    @Test func subscribeOnTheConnectableDoesNotConnect() {
        let source = CountedSource()
        let connectable = source.flow.publish()
        let events = Box<[FlowEvent<String, TestError>]>([])
        let token = connectable.subscribe { event in events.mutate { $0.append(event) } }
        #expect(source.runs.value == 0)
        let connection = connectable.connect()
        source.send("a")
        #expect(events.value == marbles("a"))
        token.cancel()
        source.send("b")
        #expect(events.value == marbles("a"))
        connection.cancel()
    }

    /// RxSwift's `connect()` returns the running connection; Combine's `Multicast` subscribes
    /// the upstream again. Pinned: one run, and any token disconnects it, once.
    @Test func connectWhileConnectedReturnsATokenForTheSameConnection() {
        let source = CountedSource()
        let connectable = source.flow.publish()
        let first = connectable.connect()
        let second = connectable.connect()
        #expect(source.runs.value == 1)
        second.cancel()
        #expect(source.cancels == 1)
        first.cancel()
        #expect(source.cancels == 1, "a token of an ended connection cancels nothing")
    }

    /// The RxSwift choice (the subject is cleared on disconnection), not Combine's (the subject
    /// outlives it): the subscribers of a disconnected connection get nothing more.
    @Test func disconnectCancelsTheUpstreamOnceAndEndsWhatItsSubscribersReceive() {
        let source = CountedSource()
        let connectable = source.flow.publish()
        let early = FlowRecorder(connectable.flow)
        let connection = connectable.connect()
        source.send("a")
        connection.cancel()
        connection.cancel()
        #expect(source.cancels == 1)
        let late = FlowRecorder(connectable.flow)
        let again = connectable.connect()
        #expect(source.runs.value == 2, "connecting again runs the upstream again")
        source.send("b")
        #expect(early.events == marbles("a"), "no completion, and nothing of the next connection")
        #expect(late.events == marbles("b"))
        again.cancel()
        #expect(source.cancels == 2)
    }

    /// RxSwift: after the upstream completed, the next connection runs it again, and a
    /// subscriber in between waits for it; Combine's late subscriber gets the completion.
    @Test func afterCompletionTheNextConnectRunsTheUpstreamAgain() {
        let runs = AtomicCounter()
        let connectable = Flow<Int, Never>.deferred { runs.increment(); return .just(runs.value) }.publish()
        let first = FlowRecorder(connectable.flow)
        let connection = connectable.connect()
        #expect(first.events == [.value(1), .finished])
        let late = FlowRecorder(connectable.flow)
        #expect(late.events == [], "waits for the next connection")
        connection.cancel()
        connectable.connect().cancel()
        #expect(runs.value == 2)
        #expect(late.events == [.value(2), .finished])
    }

    @Test func failureReachesEverySubscriber() {
        let connectable = marbleFlow("a#", failure: TestError()).publish()
        let first = FlowRecorder(connectable.flow), second = FlowRecorder(connectable.flow)
        connectable.connect().cancel()
        #expect(first.events == marbles("a#", failure: TestError()))
        #expect(second.events == marbles("a#", failure: TestError()))
    }

    @Test func replaySendsTheLatestValuesOfTheConnectionAndDropsThemWithIt() {
        let source = CountedSource()
        let connectable = source.flow.replay(2)
        let connection = connectable.connect()
        source.send("a"); source.send("b"); source.send("c")
        let late = FlowRecorder(connectable.flow)
        source.send("d")
        #expect(late.values == ["b", "c", "d"])
        connection.cancel()
        let next = FlowRecorder(connectable.flow)
        #expect(next.events == [], "the buffer went with the connection")
        connectable.connect().cancel()
    }

    @Test func refCountConnectsAtTheFirstSubscriberAndDisconnectsAtTheLast() {
        let source = CountedSource()
        let shared = source.flow.publish().refCount()
        #expect(source.runs.value == 0)
        let first = FlowRecorder(shared), second = FlowRecorder(shared)
        #expect(source.runs.value == 1)
        source.send("a")
        first.cancel()
        #expect(source.cancels == 0)
        second.cancel()
        #expect(source.cancels == 1)
        let third = FlowRecorder(shared)
        #expect(source.runs.value == 2)
        source.send("b")
        #expect(second.values == ["a"] && third.values == ["b"])
        third.cancel()
    }

    @Test func refCountReconnectsAfterTheUpstreamCompleted() {
        let runs = AtomicCounter()
        let shared = Flow<Int, Never>.deferred { runs.increment(); return .just(runs.value) }.replay(1).refCount()
        #expect(FlowRecorder(shared).events == [.value(1), .finished])
        #expect(FlowRecorder(shared).events == [.value(2), .finished], "as RxSwift's refCount")
    }

    /// RxSwift: refCount's first subscriber joins a connection made by `connect()`, and its
    /// last one ends it.
    @Test func refCountSharesAndEndsAConnectionMadeByConnect() {
        let source = CountedSource()
        let connectable = source.flow.publish()
        let connection = connectable.connect()
        let counted = FlowRecorder(connectable.refCount())
        #expect(source.runs.value == 1)
        source.send("a")
        counted.cancel()
        #expect(source.cancels == 1)
        connection.cancel()
        #expect(source.cancels == 1)
        #expect(counted.values == ["a"])
    }

    @Test func refCountFromManyThreadsNeverConnectsTwiceNorLeavesAConnectionBehind() {
        weak var captured: Tracked?
        let source = CountedSource()
        do {
            let tracked = Tracked()
            captured = tracked
            let shared = source.flow.map { value -> String in _ = tracked; return value }.publish().refCount()
            let steady = FlowRecorder(shared)
            DispatchQueue.concurrentPerform(iterations: 4) { thread in
                for value in 0..<300 {
                    if thread == 0 { source.send("\(value)") } else { FlowRecorder(shared).cancel() }
                }
            }
            #expect(source.runs.value == 1, "the steady subscriber kept the one connection")
            #expect(steady.values == (0..<300).map { "\($0)" })
            steady.cancel()
            #expect(source.cancels == 1)
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                for _ in 0..<300 { FlowRecorder(shared).cancel() }
            }
            #expect(source.runs.value > 1)
            #expect(source.cancels == source.runs.value, "every connection ended once")
        }
        #expect(captured == nil)
    }

    @Test func aSubscriberMayDisconnectAndReconnectFromItsHandler() {
        let source = CountedSource()
        let connectable = source.flow.publish()
        let connection = Box<CancellationToken?>(nil)
        let seen = Box<[String]>([])
        let token = connectable.subscribe { event in
            guard case .value(let value) = event else { return }
            seen.mutate { $0.append(value) }
            if value == "a" {
                connection.take()?.cancel()
                connection.value = connectable.connect()
            }
        }
        connection.value = connectable.connect()
        source.send("a")
        #expect(source.cancels == 1 && source.runs.value == 2)
        let next = FlowRecorder(connectable.flow)
        source.send("b")
        #expect(seen.value == ["a"], "it followed the connection it disconnected")
        #expect(next.values == ["b"])
        token.cancel()
        connection.value?.cancel()
        #expect(source.cancels == 2)
    }

    @Test func aSubscriberMaySubscribeFromInsideADelivery() {
        let source = CountedSource()
        let connectable = source.flow.replay(1)
        let late = Box<FlowRecorder<String, TestError>?>(nil)
        let token = connectable.subscribe { event in
            if case .value("a") = event { late.value = FlowRecorder(connectable.flow) }
        }
        let connection = connectable.connect()
        source.send("a")
        source.send("b")
        #expect(late.value?.values == ["a", "b"], "the replay, then the next value, each once")
        token.cancel()
        connection.cancel()
    }

    @Test func nothingIsRetainedAfterDisconnectOrCompletion() {
        weak var upstreamCapture: Tracked?
        weak var subscriberCapture: Tracked?
        let source = CountedSource()
        do {
            let tracked = Tracked(), watcher = Tracked()
            upstreamCapture = tracked
            subscriberCapture = watcher
            let connectable = source.flow.map { value -> String in _ = tracked; return value }.replay(1)
            let token = connectable.subscribe { _ in _ = watcher }
            let connection = connectable.connect()
            source.send("a")
            connection.cancel()
            _ = token
        }
        #expect(upstreamCapture == nil && subscriberCapture == nil, "after a disconnect")
        do {
            let watcher = Tracked()
            subscriberCapture = watcher
            let connectable = Flow<Int, Never>.just(1).publish()
            _ = connectable.subscribe { _ in _ = watcher }
            _ = connectable.connect()
        }
        #expect(subscriberCapture == nil, "after completion")
    }

    @Test func aTokenKeptAfterItsConnectionEndedRetainsNoSubscriber() {
        weak var captured: Tracked?
        let connectable = CountedSource().flow.publish()
        let kept: CancellationToken
        do {
            let watcher = Tracked()
            captured = watcher
            _ = connectable.subscribe { _ in _ = watcher }
            kept = connectable.connect()
            connectable.connect().cancel()
        }
        #expect(captured == nil)
        kept.cancel()
    }

    /// A connection whose token was dropped runs as long as its upstream does ("releasing it
    /// does not disconnect"), so its subscribers must get the upstream's completion even when
    /// nothing else keeps the connectable. Before the fix the connection's upstream subscriber
    /// held the share weakly, and the completion was dropped once the connectable was gone.
    @Test func aConnectionKeptByNobodyStillDeliversTheCompletion() {
        let source = ManualFlow<String>()
        let recorder = Self.subscribeAndConnectDroppingEverything(source.flow)
        source.send("a")
        source.finish()
        #expect(recorder.events == marbles("a|"))
    }

    private static func subscribeAndConnectDroppingEverything(_ flow: Flow<String, TestError>) -> FlowRecorder<String, TestError> {
        let connectable = flow.publish()
        let recorder = FlowRecorder(connectable.flow)
        _ = connectable.connect()
        return recorder
    }
}
