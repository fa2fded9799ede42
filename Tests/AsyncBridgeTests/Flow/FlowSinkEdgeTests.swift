// The one sink at its edges: the token's gate behind operators that drop values, what a token
// keeps, subscribe(onStart:), share's stopping connection, MainActorFlow's hop per subscription,
// values through the sink, and patterns the debug concurrent-delivery check must not mistake
// for concurrent deliveries (`@testable` for the white-box probes: debug builds only).
#if DEBUG
@testable import AsyncBridge
#else
import AsyncBridge
#endif
import AsyncBridgeTesting
import Dispatch
import Foundation
import Testing

@Suite("Flow: the sink at its edges (values dropped by operators, what a token keeps, driver order, share)", .timeLimit(.minutes(1)))
struct FlowSinkEdgeTests {
    // MARK: - a handler that cancels itself: does the synchronous source stop?

    /// Operators that drop a value without asking downstream (each answers `.more` for it): a
    /// `.stop` reaches the source only with a value that passes.
    static let droppingOperators: [(name: String, build: @Sendable (Flow<Int, Never>) -> Flow<Int, Never>)] = [
        ("filter", { $0.filter { $0 == 0 } }),
        ("compactMap", { $0.compactMap { $0 == 0 ? $0 : nil } }),
        ("removeDuplicates", { $0.map { $0 == 0 ? 0 : 1 }.removeDuplicates().filter { _ in true } }),
        ("drop(while:) then filter", { $0.drop { $0 < 0 }.filter { $0 == 0 } }),
    ]

    /// Held: the handler cancels inside the delivery of a value that passed, so the `.stop` goes
    /// back through the operator with that very value.
    @Test(arguments: droppingOperators.map(\.name))
    func aHandlerThatCancelsStopsASequenceBehindAnOperatorThatDropsValues(_ name: String) throws {
        let build = try #require(Self.droppingOperators.first { $0.name == name }?.build)
        let produced = AtomicCounter()
        let source = Flow<Int, Never>.sequence(0..<20_000).handleEvents(onValue: { _ in produced.increment() })
        let events = Box<[FlowEvent<Int, Never>]>([])
        let token = Box<CancellationToken?>(nil)
        _ = build(source).subscribe(onStart: { token.value = $0 }) { event in
            events.mutate { $0.append(event) }
            if case .value = event { token.value?.cancel() }
        }
        #expect(events.value == [.value(0)])
        #expect(produced.value == 1, "\(name): the sequence went on producing after the handler cancelled (\(produced.value) values)")
    }

    /// FINDING. A sequence running on a queue, cancelled from another thread while it is parked
    /// at its second value. `Flow.sequence` stops only on `.stop` and never looks at its
    /// subscription; `filter` (any operator that drops a value: compactMap, removeDuplicates,
    /// drop(while:), dropFirst) and `count()` (any fold) answer `.more` without asking the sink,
    /// so the sink's closed gate never reaches the loop: it runs to the end (for ever with
    /// `Flow.sequence(0...)`), holding the chain's closures (contract 2: "promptly, and releases
    /// every closure"). A `Flow.create` loop asking `emitter.isCancelled` stops (the third case).
    @Test(arguments: ["filter", "count", "create+filter"])
    func aSequenceCancelledFromAnotherThreadStops(_ shape: String) {
        let queue = DispatchQueue(label: "review.sequence")
        let produced = AtomicCounter()
        let parked = DispatchSemaphore(value: 0)
        let resume = DispatchSemaphore(value: 0)
        let count = 20_000
        let park: @Sendable (Int) -> Void = { value in
            produced.increment()
            if value == 1 {
                parked.signal()
                resume.wait()
            }
        }
        let sequence = Flow<Int, Never>.sequence(0..<count).handleEvents(onValue: park)
        let loop = Flow<Int, Never>.create { emitter in
            var next = 0
            while !emitter.isCancelled, next < count {
                park(next)
                emitter.send(next)
                next += 1
            }
        }
        let flow: Flow<Int, Never>
        switch shape {
        case "filter": flow = sequence.filter { _ in false }
        case "count": flow = sequence.count()
        default: flow = loop.filter { _ in false }
        }
        let token = flow.subscribe(on: queue).subscribe(onValue: { _ in }, onCompletion: { _ in })
        parked.wait()
        token.cancel()
        resume.signal()
        queue.sync {}
        #expect(produced.value <= 3, "\(shape): \(produced.value) values produced after the subscription was cancelled at the second")
    }

    /// FINDING, the same on one thread: `prefix(untilOutputFrom:)` ends (its trigger fires during
    /// the sequence's second value) and cancels the sequence's subscription, but the sequence
    /// never looks at it, and `filter` answers `.more` for every value it drops: 20,000 values
    /// are produced for a flow that finished at the second. RxSwift's `from` checks its
    /// disposable before each element; Combine's `Sequence.publisher` checks its cancellation.
    @Test func aSequenceWhoseSubscriptionWasCancelledStopsOnTheSameThread() {
        let produced = AtomicCounter()
        let stop = LiveSubject<Void, Never>()
        let source = Flow<Int, Never>.sequence(0..<20_000)
            .handleEvents(onValue: { value in
                produced.increment()
                if value == 1 { stop.send(()) }
            })
            .filter { $0 == 0 }
        let recorder = FlowRecorder(source.prefix(untilOutputFrom: stop.flow))
        #expect(recorder.events == [.value(0), .finished])
        #expect(produced.value == 2, "the sequence produced \(produced.value) values after its subscription was cancelled")
    }

    @Test func aHandlerThatCancelsStopsACreateLoopBehindFilter() {
        let produced = AtomicCounter()
        let loop = Flow<Int, Never>.create { emitter in
            var next = 0
            while !emitter.isCancelled, next < 20_000 {
                produced.increment()
                emitter.send(next)
                next += 1
            }
        }
        let events = eventsCancellingOnFirstValueFromTheStart(loop.filter { $0 == 0 })
        #expect(events == [.value(0)])
        #expect(produced.value == 1)
    }

    // MARK: - leaks

    /// Held: a token kept after its flow completed holds neither the handlers nor the source's
    /// closures (also across a hop).
    @Test func aTokenKeptAfterCompletionHoldsNeitherHandlersNorSource() {
        let kept = Box<[CancellationToken]>([])
        let queue = DispatchQueue(label: "review.hop")
        let gate = DispatchSemaphore(value: 0)
        // Holds the queue until the finish waits there too: a delivery block that started
        // between the value and the finish would deliver the value only, and leave the finish
        // to a block it enqueues after the `queue.sync` below.
        queue.async { gate.wait() }
        expectReleased("a token kept after completion") { tracked in
            let source = Flow<Int, Never>.create { emitter in
                emitter.send(1)
                emitter.finish()
                emitter.onCancel { _ = tracked }
            }
            let direct = source.subscribe { _ in _ = tracked }
            let hopped = source.map { value -> Int in _ = tracked; return value }.receive(on: queue).subscribe { _ in _ = tracked }
            gate.signal()
            queue.sync {}
            kept.mutate { $0 += [direct, hopped] }
        }
        #expect(kept.value.allSatisfy { !$0.isCancelled })
    }

    /// Held: a cancelled token kept holds nothing of the subject's subscription.
    @Test func aCancelledTokenKeptHoldsNothing() {
        let subject = LiveSubject<Int, Never>()
        let kept = Box<[CancellationToken]>([])
        expectReleased("a cancelled token") { tracked in
            let token = subject.flow.map { value -> Int in _ = tracked; return value }.subscribe { _ in _ = tracked }
            subject.send(1)
            token.cancel()
            kept.mutate { $0.append(token) }
        }
        subject.send(2)
    }

    /// Held: `subscribe(with:)` never keeps its owner; once the owner is gone the next value ends
    /// the subscription (the source's cancel action runs once, the handlers are let go of), the
    /// token does not say cancelled, and a later `cancel()` runs nothing more.
    @Test func subscribeWithEndsAtTheFirstValueAfterTheOwnerIsGone() {
        let cancels = AtomicCounter()
        let emitter = Box<FlowEmitter<Int, Never>?>(nil)
        let source = Flow<Int, Never>.create { sink in
            emitter.value = sink
            sink.onCancel { cancels.increment() }
        }
        let received = AtomicCounter()
        weak var weakOwner: Tracked?
        weak var weakCaptured: Tracked?
        let token: CancellationToken
        do {
            let owner = Tracked()
            let captured = Tracked()
            weakOwner = owner
            weakCaptured = captured
            token = source.subscribe(with: owner, onValue: { _, _ in _ = captured; received.increment() })
            emitter.value?.send(1)
        }
        #expect(weakOwner == nil, "subscribe(with:) kept its owner")
        #expect(received.value == 1)
        emitter.value?.send(2)
        #expect(received.value == 1)
        #expect(cancels.value == 1, "the source was not told to stop when the owner had gone")
        #expect(weakCaptured == nil, "the handlers outlived the end of the subscription")
        #expect(emitter.value?.isCancelled == true)
        #expect(!token.isCancelled)
        token.cancel()
        #expect(token.isCancelled)
        #expect(cancels.value == 1)
        emitter.value = nil
    }

    /// Held: a token cancelled in `onStart` runs nothing and keeps nothing.
    @Test func aTokenCancelledInOnStartKeepsNothing() {
        let runs = AtomicCounter()
        let kept = Box<CancellationToken?>(nil)
        expectReleased("subscribe(onStart:) cancelled in onStart") { tracked in
            let flow = Flow<Int, Never>.deferred {
                _ = tracked
                runs.increment()
                return .just(1)
            }
            kept.value = flow.subscribe(onStart: { $0.cancel() }, onValue: { _ in _ = tracked }, onCompletion: { _ in _ = tracked })
        }
        #expect(runs.value == 0)
        #expect(kept.value?.isCancelled == true)
    }

    /// Held: leaving a `values` loop early cancels the source and lets go of everything.
    /// (The values are sent once the loop's subscription exists: a sender looping until the
    /// loop subscribed could keep the subscribing thread delivering for ever, as it becomes the
    /// subject's drain while the other thread keeps sending.)
    @Test func leavingAValuesLoopReleasesTheSourceAndStorage() async {
        let cancels = AtomicCounter()
        let subject = LiveSubject<Int, Never>()
        let subscribed = CompletionSpy<Void>()
        weak var weakTracked: Tracked?
        do {
            let tracked = Tracked()
            weakTracked = tracked
            let flow = Flow<Int, Never>.create { emitter in
                let token = subject.flow.subscribe(onValue: { emitter.send($0) }, onCompletion: { _ in })
                subscribed.record(())
                emitter.onCancel { _ = tracked; cancels.increment(); token.cancel() }
            }
            let iterating = Task {
                for await value in flow.values where value == 2 { break }
            }
            await subscribed.firstCall()
            for value in 0..<3 { subject.send(value) }
            await iterating.value
        }
        #expect(cancels.value == 1)
        #expect(weakTracked == nil, "the values storage kept the source's cancel action")
    }

    // MARK: - MainActorFlow

    /// Held: cancelling on the main actor while a hop block waits on the main queue lets go of
    /// the handlers at once, delivers nothing, and cancels the upstream once.
    @Test @MainActor func cancellingAMainActorSubscriptionWithABlockPendingLetsGoAtOnce() async {
        let cancels = AtomicCounter()
        let emitter = Box<FlowEmitter<Int, Never>?>(nil)
        let source = Flow<Int, Never>.create { sink in
            emitter.value = sink
            sink.onCancel { cancels.increment() }
        }
        let received = AtomicCounter()
        weak var weakCaptured: Tracked?
        let token: CancellationToken
        do {
            let captured = Tracked()
            weakCaptured = captured
            token = source.receive(on: MainActor.shared).subscribe(onValue: { _ in _ = captured; received.increment() }, onCompletion: { _ in })
        }
        DispatchQueue.global().sync { emitter.value?.send(1) }  // a block now waits on the main queue
        token.cancel()
        #expect(weakCaptured == nil, "the handlers outlived cancel() while a block waited")
        #expect(cancels.value == 1)
        await waitForMainQueue()
        #expect(received.value == 0)
        emitter.value = nil
    }

    /// Held: a value sent on the main queue while a block for a background value is scheduled
    /// comes after it (the driver's inline delivery does not jump the queue).
    @Test @MainActor func aDriverValueSentOnMainWhileABlockIsScheduledComesAfterIt() async {
        let subject = LiveSubject<Int, Never>()
        let driver = subject.flow.driver()
        let received = Box<[Int]>([])
        let token = driver.subscribe(onValue: { value in received.mutate { $0.append(value) } }, onCompletion: { _ in })
        DispatchQueue.global().sync { subject.send(1) }  // scheduled on the main queue
        subject.send(2)  // on main, with a block pending
        #expect(received.value == [])
        await waitForMainQueue()
        #expect(received.value == [1, 2])
        subject.send(3)  // nothing pending: inline
        #expect(received.value == [1, 2, 3])
        token.cancel()
    }

    /// Held: a main-actor handler that sends into the subject feeding the driver: no deadlock,
    /// every subscriber sees the values in the order sent, the re-entrant one after the first.
    @Test @MainActor func aDriverHandlerSendingIntoItsOwnSourceKeepsTheOrder() async {
        let subject = LiveSubject<Int, Never>()
        let driver = subject.flow.driver()
        let first = Box<[Int]>([])
        let second = Box<[Int]>([])
        let bag = CancellationBag()
        driver.subscribe(onValue: { value in
            first.mutate { $0.append(value) }
            if value < 3 { subject.send(value + 1) }
        }, onCompletion: { _ in }).store(in: bag)
        driver.subscribe(onValue: { value in second.mutate { $0.append(value) } }, onCompletion: { _ in }).store(in: bag)
        subject.send(1)
        await waitForMainQueue()
        await waitForMainQueue()
        #expect(first.value == [1, 2, 3])
        #expect(second.value == [1, 2, 3])
        // The same, started from another thread (the handler then runs in a main-queue block).
        DispatchQueue.global().sync { subject.send(1) }
        for _ in 0..<4 { await waitForMainQueue() }
        #expect(first.value == [1, 2, 3, 1, 2, 3])
        #expect(second.value == [1, 2, 3, 1, 2, 3])
        bag.cancelAll()
    }

    /// Held: a driver subscriber that cancels itself inside its replay (delivered inline,
    /// inside `subscribe`, on main) stops a synchronous upstream through the share.
    @Test @MainActor func aDriverSubscriberCancellingInItsInlineDeliveryStopsTheUpstream() async {
        let produced = AtomicCounter()
        let driver = Flow<Int, Never>.sequence(0..<20_000).handleEvents(onValue: { _ in produced.increment() }).driver()
        let received = Box<[Int]>([])
        let token = Box<CancellationToken?>(nil)
        _ = driver.flow.subscribe(onStart: { token.value = $0 }, onValue: { value in
            received.mutate { $0.append(value) }
            token.value?.cancel()
        }, onCompletion: { _ in })
        #expect(received.value == [0])
        #expect(produced.value == 1)
        await waitForMainQueue()
        #expect(received.value == [0])
    }

    /// Was a finding in a test, not the library (fixed by 0f3d4bb): MainActorHopTests expected,
    /// on the subscribing background thread right after `subscribe` returned, that the replay
    /// had not arrived yet; but it is a main-queue block by then, and the main actor was free
    /// (the test awaited), so it often had (11 runs in 15). Here the main queue is let run
    /// before the thread looks, deterministically: the replay came on the main queue, after
    /// `subscribe` returned, as it should.
    @Test @MainActor func theReplayToAnOffMainDriverSubscriberMayArriveBeforeItsThreadLooks() async {
        let subject = LiveSubject<Int, Never>()
        let driver = subject.flow.driver()
        let bag = CancellationBag()
        driver.subscribe(onValue: { _ in }, onCompletion: { _ in }).store(in: bag)
        subject.send(5)
        await waitForMainQueue()
        let offMain = Box<[(Int, Bool)]>([])
        let checked = CompletionSpy<Bool>()
        DispatchQueue.global().async {
            driver.flow.subscribe(onValue: { value in offMain.mutate { $0.append((value, isOnMainQueue())) } }, onCompletion: { _ in })
                .store(in: bag)
            DispatchQueue.main.sync {}  // what the main queue may do before this thread looks
            checked.record(offMain.value.isEmpty)  // what MainActorHopTests checked before 0f3d4bb
        }
        let emptyWhenLooked = await checked.firstCall()
        #expect(!emptyWhenLooked, "the main queue ran first: an emptiness check there could only race it")
        #expect(offMain.value.map(\.0) == [5])
        #expect(offMain.value.allSatisfy { $0.1 }, "the replay was delivered off the main queue")
        bag.cancelAll()
    }

    // MARK: - share

    /// Held: a subscriber that joins during the first one's synchronous emission, before the
    /// first cancels itself, keeps the connection: it gets every later value and the finish.
    @Test func aShareSubscriberJoiningDuringTheFirstsEmissionKeepsTheConnection() {
        let runs = AtomicCounter()
        let shared = Flow<Int, Never>.deferred {
            runs.increment()
            return .sequence(0..<5)
        }.share(replay: 1)
        let second = Box<[FlowEvent<Int, Never>]>([])
        let secondToken = Box<CancellationToken?>(nil)
        let firstToken = Box<CancellationToken?>(nil)
        let first = Box<[Int]>([])
        _ = shared.subscribe(onStart: { firstToken.value = $0 }, onValue: { value in
            first.mutate { $0.append(value) }
            guard value == 1 else { return }
            secondToken.value = shared.subscribe { event in second.mutate { $0.append(event) } }
            firstToken.value?.cancel()
        }, onCompletion: { _ in })
        #expect(first.value == [0, 1])
        #expect(runs.value == 1)
        #expect(second.value == [.value(1), .value(2), .value(3), .value(4), .finished])
    }

    /// Held: with `.forever`, every subscriber leaving during a synchronous emission stops the
    /// upstream; the next subscriber reconnects and first gets the kept buffer.
    @Test func aForeverShareReconnectsKeepingItsBufferAfterEveryoneLeftMidEmission() {
        let runs = AtomicCounter()
        let shared = Flow<Int, Never>.deferred {
            let run = runs.value
            runs.increment()
            return .sequence((0..<3).map { $0 + 10 * run })
        }.share(replay: 1, scope: .forever)
        let events = eventsCancellingOnFirstValueFromTheStart(shared)
        #expect(events == [.value(0)])
        let later = FlowRecorder(shared)
        #expect(later.events == [.value(0), .value(10), .value(11), .value(12), .finished])
        #expect(runs.value == 2)
    }

    /// Held: another subscriber cancelling on one thread while the upstream finishes on another
    /// never loses the finish of the subscriber that stays.
    @Test func aShareCompletionRacingAnotherSubscribersCancelIsNeverLost() {
        for _ in 0..<500 {
            let emitter = Box<FlowEmitter<Int, Never>?>(nil)
            let shared = Flow<Int, Never>.create { emitter.value = $0 }.share()
            let leaving = shared.subscribe { _ in }
            let staying = FlowRecorder(shared)
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                if index == 0 { leaving.cancel() } else { emitter.value?.finish() }
            }
            #expect(staying.events == [.finished])
            if staying.events != [.finished] { break }
            emitter.value = nil
        }
    }
}

#if DEBUG
/// The debug check of one delivery at a time must not stop a legitimate program: patterns the
/// chaos suites do not cover, each in a process of its own (a trap ends it with a failure).
@Suite("Flow: the concurrent-delivery check raises no false alarm", .timeLimit(.minutes(1)))
struct ConcurrentDeliveryCheckTests {
    @Test func aHandlerWaitingForAnotherThreadThatSendsToTheSameSubject() async {
        await #expect(processExitsWith: .success) { deliveryCheckProbe("cross-thread nesting") }
    }

    @Test func aSubjectDeliveringOnOneThreadThenAnother() async {
        await #expect(processExitsWith: .success) { deliveryCheckProbe("thread handoff") }
    }

    @Test func combiningOperatorsWithSourcesOnSeveralThreads() async {
        await #expect(processExitsWith: .success) { deliveryCheckProbe("combining") }
    }

    @Test func hopsRetryCatchAndGroupByWithSourcesOnSeveralThreads() async {
        await #expect(processExitsWith: .success) { deliveryCheckProbe("hops") }
    }

    @Test func timedOperatorsWithAClockAdvancedFromAnotherThread() async {
        await #expect(processExitsWith: .success) { await deliveryCheckTimedProbe() }
    }

    @Test func valuesWithABlockedProducerAndSeveralSenders() async {
        await #expect(processExitsWith: .success) { await deliveryCheckValuesProbe() }
    }

    /// The same probes in this process, for the thread sanitizer (whose reports an exit test's
    /// child process would keep to itself): `ASYNCBRIDGE_DELIVERY_CHECK_INPROCESS=1 swift test
    /// --sanitize=thread --filter ConcurrentDeliveryCheckTests`.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["ASYNCBRIDGE_DELIVERY_CHECK_INPROCESS"] != nil))
    func theProbesInProcess() async {
        for pattern in ["cross-thread nesting", "thread handoff", "combining", "hops"] { deliveryCheckProbe(pattern) }
        await deliveryCheckTimedProbe()
        await deliveryCheckValuesProbe()
    }
}
#endif

/// Runs one family of patterns; traps (in debug builds) if the check fires.
func deliveryCheckProbe(_ pattern: String) {
    switch pattern {
    case "cross-thread nesting":
        // The handler, delivering on this thread, waits for another thread that sends to the
        // same subject: queued behind this delivery, delivered after it by this thread.
        let subject = LiveSubject<Int, Never>()
        let received = Box<[Int]>([])
        let token = subject.flow.map { $0 }.subscribe(onValue: { value in
            received.mutate { $0.append(value) }
            guard value == 0 else { return }
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                subject.send(1)
                done.signal()
            }
            done.wait()
        }, onCompletion: { _ in })
        subject.send(0)
        precondition(received.value == [0, 1], "\(received.value)")
        token.cancel()
    case "thread handoff":
        let subject = LiveSubject<Int, Never>()
        let count = AtomicCounter()
        let token = subject.flow.subscribe(onValue: { _ in count.increment() }, onCompletion: { _ in })
        let queues = (0..<4).map { DispatchQueue(label: "handoff.\($0)") }
        for round in 0..<2_000 {
            queues[round % 4].sync { subject.send(round) }
        }
        precondition(count.value == 2_000)
        token.cancel()
    case "combining":
        for round in 0..<300 {
            let a = LiveSubject<Int, TestError>(), b = LiveSubject<Int, TestError>()
            let flows: [Flow<Int, TestError>] = [
                a.flow.combineLatest(b.flow).map { $0 + $1 },
                a.flow.zip(b.flow).map { $0 + $1 },
                a.flow.withLatestFrom(b.flow).map { $0 + $1 },
                a.flow.sample(b.flow),
                a.flow.race(with: b.flow),
                a.flow.prefix(untilOutputFrom: b.flow.filter { $0 == 50 }),
                a.flow.drop(untilOutputFrom: b.flow),
                a.flow.merge(with: b.flow).scan(0, +),
                a.flow.flatMapLatest { value in value % 3 == 0 ? b.flow : .just(value) },
            ]
            let tokens = flows.map { flow in
                // One re-entrant send per subscription (more could feed back for ever: sample).
                let sentBack = AtomicCounter()
                return flow.subscribe(onValue: { value in
                    if value == 17, sentBack.value == 0 {
                        sentBack.increment()
                        b.send(-1)
                    }
                }, onCompletion: { _ in })
            }
            DispatchQueue.concurrentPerform(iterations: 3) { index in
                switch index {
                case 0: for value in 0..<100 { a.send(value) }; if round % 2 == 0 { a.finish() }
                case 1: for value in 0..<100 { b.send(value) }; if round % 3 == 0 { b.fail(TestError()) }
                default: for token in tokens where round % 4 == 0 { token.cancel() }
                }
            }
            for token in tokens { token.cancel() }
        }
    default:  // hops, retry, catch, groupBy
        let concurrent = DispatchQueue(label: "review.concurrent", attributes: .concurrent)
        for round in 0..<300 {
            let a = LiveSubject<Int, TestError>(), b = LiveSubject<Int, TestError>()
            let emitters = Box<[FlowEmitter<Int, TestError>]>([])
            let retried = Flow<Int, TestError>.create { emitter in emitters.mutate { $0.append(emitter) } }
            let flows: [Flow<Int, TestError>] = [
                a.flow.merge(with: b.flow).receive(on: concurrent),
                a.flow.merge(with: b.flow).receive(on: concurrent).share(),
                retried.retry(maxAttempts: 50),
                a.flow.catch { _ in b.flow },
                a.flow.merge(with: b.flow).groupBy { $0 % 2 }.flatMap { $0.flow },
            ]
            let tokens = flows.map { flow in flow.subscribe(onValue: { _ in }, onCompletion: { _ in }) }
            let share = flows[1].subscribe(onValue: { _ in }, onCompletion: { _ in })
            DispatchQueue.concurrentPerform(iterations: 4) { index in
                switch index {
                case 0: for value in 0..<100 { a.send(value) }; if round % 2 == 0 { a.fail(TestError()) }
                case 1: for value in 0..<100 { b.send(value) }
                case 2:
                    for value in 0..<100 {
                        let all = emitters.value
                        if value % 10 == 0 { all.last?.fail(TestError()) } else { all.last?.send(value) }
                    }
                default: for token in tokens where round % 4 == 0 { token.cancel() }
                }
            }
            for token in tokens + [share] { token.cancel() }
            concurrent.sync(flags: .barrier) {}
        }
    }
}

/// Timed operators on a manual clock advanced from another thread while the source sends.
func deliveryCheckTimedProbe() async {
    for round in 0..<100 {
        let clock = ManualClock()
        let subject = LiveSubject<Int, Never>()
        let flows: [Flow<Int, Never>] = [
            subject.flow.debounce(for: .seconds(1), clock: clock),
            subject.flow.throttle(for: .seconds(1), clock: clock, latest: true),
            subject.flow.delay(for: .seconds(1), clock: clock),
            subject.flow.timeout(.seconds(2), clock: clock, switchingTo: subject.flow.map { -$0 }),
            subject.flow.sample(Flow<Int, Never>.interval(.seconds(1), clock: clock)),
        ]
        let tokens = flows.map { $0.subscribe(onValue: { _ in }, onCompletion: { _ in }) }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                DispatchQueue.concurrentPerform(iterations: 2) { index in
                    if index == 0 {
                        for value in 0..<200 { subject.send(value) }
                    } else {
                        for _ in 0..<200 { clock.advance(by: .milliseconds(250)) }
                    }
                }
                if round % 2 == 0 { subject.finish() }
                done.resume()
            }
        }
        for token in tokens { token.cancel() }
    }
}

/// `values` with a producer held at a full buffer while other threads send to its subject.
func deliveryCheckValuesProbe() async {
    for _ in 0..<50 {
        let subject = LiveSubject<Int, Never>()
        let values = subject.flow.values(bufferingPolicy: .blockingProducer(limit: 1))
        var iterator = values.makeAsyncIterator()
        let sent = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            DispatchQueue.concurrentPerform(iterations: 3) { index in
                for value in 0..<50 { subject.send(index * 100 + value) }
            }
            subject.finish()
            sent.signal()
        }
        var count = 0
        while await iterator.next() != nil { count += 1 }
        await withCheckedContinuation { done in
            DispatchQueue.global().async {
                sent.wait()
                done.resume()
            }
        }
        _ = count
    }
}
