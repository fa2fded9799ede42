@testable import AsyncBridge
import Testing

extension ExhaustiveStateMachineSuites {
/// `FlatMapStateMachine` driven with plain values, no threads, through every sequence of its
/// inputs (``checkEverySequence(over:upTo:sourceLocation:_:)``) up to a length (``Configuration/maxLength``) that the environment allows (a model of
/// the threads around it decides which inputs are possible at each step).
///
/// The alphabet (16 inputs): an outer value, the outer finishing, the outer failing, downstream
/// cancelling, the starter returning from a subscribe
/// (``FlatMapStateMachine/startReturned(finishing:)``), alone or reporting that the inner it
/// started finished during its subscribe, the deliverer returning from a delivery
/// (``FlatMapStateMachine/delivered(for:)``), and a value, a finish and a failure from inner 1,
/// 2 and 3. Sequences of length up to 9 for
/// `flatMap` with `maxConcurrent` 1, 2 and unlimited and for `flatMapFirst`, up to 8 for
/// `flatMapLatest` (whose outer is never held up by a start loop, so more sequences are possible).
///
/// Possible inputs: the outer sends nothing while its own thread starts an inner, nor after it
/// completed; an inner sends only once started, nothing after it completed, and nothing while its
/// thread delivers; the starter and the deliverer return only when there is one, and a starter
/// reports the finish of the inner it started only while that inner could still send. Cancelled
/// and replaced sources may still send (events in flight).
///
/// Checked after every step: the grammar (values, then at most one completion, nothing after);
/// every start and every cancellation handed out once, with at most one starter at a time;
/// nothing delivered once downstream cancelled; at most `maxConcurrent` inners running; after
/// a cancellation or a failure every running inner was handed out for cancelling, after a finish
/// nothing ran (so once terminated, with no running state, the machine held nothing that was not
/// handed out); after a completion or a cancellation the machine is terminated; each value delivered at most once,
/// in its inner's order; `latest`: no value an inner sent after it was replaced is delivered;
/// `merge` finishing: every outer value started and every inner value was delivered; with no
/// starter or deliverer at work, no `merge` value waits while a slot is free, and the result has
/// finished once the outer and every inner it started have; each inner
/// starts with a subscription that is not cancelled and that no source still running holds (the
/// world keeps an inner's subscription until its source ends, and completes it then, so the
/// machine makes ended ones anew, ``FlowSubscription/Spare``). At the end
/// of every sequence: once terminated, the machine holds nothing (the transform, the outer
/// subscription and every inner's are released once what it handed out is dropped).
@Suite("State machines: flatMap")
struct FlatMapStateMachineTests {

    struct Failure: Error, Equatable {}

    typealias Machine = FlatMapStateMachine<Int, Int, Failure>

    enum Input: Equatable, CustomStringConvertible {
        case outerValue, outerFinish, outerFail, cancel, startReturned, startReturnedFinishing, delivered
        case innerValue(UInt64), innerFinish(UInt64), innerFail(UInt64)

        static let all: [Input] = [.outerValue, .outerFinish, .outerFail, .cancel, .startReturned, .startReturnedFinishing, .delivered]
            + (1...3).flatMap { [Input.innerValue($0), .innerFinish($0), .innerFail($0)] }

        var description: String {
            switch self {
            case .outerValue: "outer value"
            case .outerFinish: "outer finish"
            case .outerFail: "outer fail"
            case .cancel: "cancel"
            case .startReturned: "start returned"
            case .startReturnedFinishing: "start returned, its inner finished"
            case .delivered: "delivered"
            case .innerValue(let id): "value from \(id)"
            case .innerFinish(let id): "finish of \(id)"
            case .innerFail(let id): "failure of \(id)"
            }
        }
    }

    enum Configuration: String, CaseIterable, CustomTestStringConvertible {
        case merge1, merge2, mergeUnlimited, latest, first

        var testDescription: String { rawValue }

        var strategy: FlatMapStrategy {
            switch self {
            case .merge1: .merge(maxConcurrent: 1)
            case .merge2: .merge(maxConcurrent: 2)
            case .mergeUnlimited: .merge(maxConcurrent: .max)
            case .latest: .latest
            case .first: .first
            }
        }

        var maxLength: Int {
            if case .latest = self { return 8 }
            return 9
        }

        var maxRunning: Int {
            switch self {
            case .merge1, .latest, .first: 1
            case .merge2: 2
            case .mergeUnlimited: .max
            }
        }
    }

    /// The machine and a model of everything around it.
    struct World: SequenceDriver {
        var machine: Machine
        let configuration: Configuration
        var trace: [Input] = []
        var violations: [String] = []

        var started: [UInt64] = []
        var subscriptionIDs: [ObjectIdentifier: UInt64] = [:]
        /// Each inner's subscription, kept, as its source keeps its subscriber, until the source
        /// ends (cancelled or not): completed then, as the inner's receiver does, so that the
        /// machine may make it anew for a later inner once nothing else holds it.
        var sources: [UInt64: FlowSubscription] = [:]
        /// How often each inner's cancel action (registered on its subscription as it starts)
        /// ran, and how often it must have: once if the inner was handed out for cancelling
        /// before its source ended, else never.
        let cancelRuns = Box<[UInt64: Int]>([:])
        var expectedRuns: [UInt64: Int] = [:]
        /// Starts handed an earlier inner's subscription made anew, over the whole exploration.
        let reuses: Box<Int>
        var sourceEnded: Set<UInt64> = []
        var cancelHanded: Set<UInt64> = []
        var replaced: Set<UInt64> = []
        var outerCancelHanded = false
        var outerCompleted = false
        var outerValues = 0
        var starter: (pending: Bool, isOuter: Bool) = (false, false)
        /// The inner whose thread delivers, if one does.
        var deliverer: UInt64?
        var cancelled = false
        var sent: [UInt64: Int] = [:]
        var sentAfterReplacement: Set<Int> = []
        var delivered: [Int] = []
        var completion: FlowCompletion<Failure>?

        /// What the machine must let go of once terminated: what its transform captures, the
        /// outer subscription and every inner's.
        var held: [Watched] = []

        init(_ configuration: Configuration, reuses: Box<Int>) {
            self.configuration = configuration
            self.reuses = reuses
            let capture = Marker("the transform's capture")
            let outer = FlowSubscription()
            held = [Watched(capture, "the transform's capture"), Watched(outer.state.buffer, "the outer subscription")]
            machine = Machine(strategy: configuration.strategy, transform: { _ = capture; return .just($0) }, outer: outer)
        }

        mutating func fail(_ message: String) {
            violations.append("\(message) after \(trace)")
        }

        var running: [UInt64] {
            started.filter { !sourceEnded.contains($0) && !cancelHanded.contains($0) }
        }

        func isPossible(_ input: Input) -> Bool {
            let outerFree = !outerCompleted && !(starter.pending && starter.isOuter)
            func innerFree(_ id: UInt64) -> Bool {
                started.contains(id) && !sourceEnded.contains(id) && deliverer != id
            }
            switch input {
            case .outerValue, .outerFinish, .outerFail: return outerFree
            case .cancel: return !cancelled
            case .startReturned: return starter.pending
            case .startReturnedFinishing: return starter.pending && innerFree(started.last!)
            case .delivered: return deliverer != nil
            case .innerValue(let id), .innerFinish(let id), .innerFail(let id): return innerFree(id)
            }
        }

        mutating func apply(_ input: Input) throws(Violation) -> Bool {
            guard isPossible(input) else { return false }
            step(input)
            if let violation = violations.first { throw Violation(description: violation) }
            return true
        }

        mutating func end() throws(Violation) -> [Watched] {
            sources = [:]  // what the machine handed out is dropped
            if machine.isTerminated {
                for watched in held {
                    try require(watched.object == nil, "terminated, but \(watched.name) is still held")
                }
            }
            return held
        }

        mutating func step(_ input: Input) {
            trace.append(input)
            switch input {
            case .outerValue:
                outerValues += 1
                let (action, replacedSubscription) = machine.outerValue(outerValues)
                if let replacedSubscription {
                    let id = handCancel(replacedSubscription)
                    if let id { replaced.insert(id) }
                }
                perform(action, fromOuter: true)
            case .outerFinish:
                outerCompleted = true
                perform(machine.outerCompleted(.finished), fromOuter: false)
            case .outerFail:
                outerCompleted = true
                perform(machine.outerCompleted(.failure(Failure())), fromOuter: false)
            case .cancel:
                cancelled = true
                let action = machine.cancel()
                perform(action, fromOuter: false)
                if !machine.isTerminated { fail("not terminated by a cancellation") }
            case .startReturned, .startReturnedFinishing:
                starter.pending = false
                let isOuter = starter.isOuter
                // Finishing: the inner finished on the starter's thread during its subscribe,
                // and left the report of its finish to the starter.
                let finished = input == .startReturnedFinishing ? started.last! : nil
                if let finished { sourceEnds(finished) }
                perform(machine.startReturned(finishing: finished), fromOuter: isOuter)
            case .delivered:
                guard let id = deliverer else { return }
                deliverer = nil
                switch machine.delivered(for: id) {
                case .deliver(let value):
                    deliver(value)
                    deliverer = id
                case .complete(let completion):
                    complete(completion)
                case .idle:
                    break
                }
            case .innerValue(let id):
                let value = Int(id) * 100 + sent[id, default: 0]
                sent[id, default: 0] += 1
                if replaced.contains(id) { sentAfterReplacement.insert(value) }
                switch machine.innerValue(value, from: id) {
                case .deliver(let value):
                    if deliverer != nil { fail("two deliverers") }
                    deliver(value)
                    deliverer = id
                case .queued:
                    if deliverer == nil && !machine.isTerminated { fail("queued with nobody delivering") }
                case .drop:
                    break
                }
            case .innerFinish(let id):
                sourceEnds(id)
                perform(machine.innerFinished(id), fromOuter: false)
            case .innerFail(let id):
                sourceEnds(id)
                perform(machine.innerFailed(id, Failure()), fromOuter: false)
            }
            check()
        }

        /// The source of inner `id` ended: it completes the subscription it kept.
        mutating func sourceEnds(_ id: UInt64) {
            sourceEnded.insert(id)
            sources.removeValue(forKey: id)?.complete()
        }

        mutating func perform(_ action: Machine.Action, fromOuter: Bool) {
            switch action {
            case .none:
                break
            case .start(let start):
                if starter.pending { fail("two starters") }
                if started.contains(start.id) { fail("start \(start.id) handed out twice") }
                started.append(start.id)
                if start.subscription.isCancelled { fail("inner \(start.id) started with a cancelled subscription") }
                let identity = ObjectIdentifier(start.subscription.state.buffer)
                if sources.values.contains(where: { ObjectIdentifier($0.state.buffer) == identity }) {
                    fail("inner \(start.id) started with a subscription a running source still holds")
                }
                if held.contains(where: { $0.object.map(ObjectIdentifier.init) == identity }) { reuses.mutate { $0 += 1 } }
                let runs = cancelRuns
                let id = start.id
                start.subscription.onCancel { runs.mutate { $0[id, default: 0] += 1 } }
                sources[start.id] = start.subscription
                subscriptionIDs[identity] = start.id
                held.append(Watched(start.subscription.state.buffer, "the subscription of inner \(start.id)"))
                if case .latest = configuration.strategy {
                    starter = (false, false)  // no start loop: the switch is the whole start
                } else {
                    starter = (true, fromOuter)
                }
            case .end(let teardown):
                handTeardown(teardown, completion: nil)
            case .complete(let teardown, let completion):
                handTeardown(teardown, completion: completion)
                complete(completion)
            case .completeLater(let teardown, let completion):
                handTeardown(teardown, completion: completion)
                if deliverer == nil { fail("completion left to a deliverer that does not exist") }
            }
        }

        /// The inner id of `subscription`, handed out for cancelling.
        @discardableResult
        mutating func handCancel(_ subscription: FlowSubscription) -> UInt64? {
            guard let id = subscriptionIDs[ObjectIdentifier(subscription.state.buffer)] else {
                fail("an unknown subscription handed out for cancelling")
                return nil
            }
            if cancelHanded.contains(id) { fail("inner \(id) handed out for cancelling twice") }
            cancelHanded.insert(id)
            if !sourceEnded.contains(id) { expectedRuns[id] = 1 }
            subscription.cancel()
            return id
        }

        mutating func handTeardown(_ teardown: Machine.Teardown, completion: FlowCompletion<Failure>?) {
            guard let released = teardown.released else { return }
            if case .finished = completion {
                if !released.inners.isEmpty || !released.waiting.isEmpty { fail("finished with inners running or waiting") }
                return
            }
            if outerCancelHanded { fail("the outer handed out for cancelling twice") }
            outerCancelHanded = true
            let runningBefore = running
            for subscription in released.inners.subscriptions { handCancel(subscription) }
            let left = runningBefore.filter { !cancelHanded.contains($0) }
            if !left.isEmpty { fail("inners \(left) still running after the end") }
        }

        mutating func deliver(_ value: Int) {
            if cancelled { fail("value \(value) delivered after the cancellation") }
            if completion != nil { fail("value \(value) delivered after the completion") }
            if delivered.contains(value) { fail("value \(value) delivered twice") }
            if let last = delivered.last(where: { $0 / 100 == value / 100 }), last > value {
                fail("value \(value) delivered after \(last)")
            }
            if sentAfterReplacement.contains(value) { fail("value \(value) of a replaced inner delivered") }
            delivered.append(value)
        }

        mutating func complete(_ completion: FlowCompletion<Failure>) {
            if cancelled { fail("completed after the cancellation") }
            if self.completion != nil { fail("completed twice") }
            self.completion = completion
            if case .finished = completion, case .merge = configuration.strategy {
                if started.count != outerValues { fail("finished with \(outerValues - started.count) outer values not started") }
                if delivered.count != sent.values.reduce(0, +) { fail("finished without every inner value") }
            }
        }

        mutating func check() {
            if running.count > configuration.maxRunning { fail("\(running.count) inners running") }
            if completion != nil && !machine.isTerminated { fail("completed but not terminated") }
            if case .completing = machine.state, deliverer == nil { fail("completing with nobody delivering") }
            // Nothing left hanging once no starter or deliverer is at work: a merge starts what
            // waits while a slot is free, and the result finishes once everything has ended.
            if !starter.pending && deliverer == nil && !machine.isTerminated {
                let waiting = outerValues - started.count
                if case .merge = configuration.strategy, waiting > 0, running.count < configuration.maxRunning {
                    fail("an outer value waits with a slot free")
                }
                if outerCompleted && running.isEmpty && (waiting == 0 || configuration == .first) && !cancelled {
                    fail("everything ended, but the result did not finish")
                }
            }
            if cancelRuns.value != expectedRuns {
                fail("cancel actions ran \(cancelRuns.value.sorted { $0.key < $1.key }), expected \(expectedRuns.sorted { $0.key < $1.key })")
            }
        }
    }

    @Test(arguments: Configuration.allCases)
    func everySequenceKeepsTheRules(_ configuration: Configuration) {
        let reuses = Box(0)
        let count = checkEverySequence(over: Input.all, upTo: configuration.maxLength) { World(configuration, reuses: reuses) }
        #expect(count > 10_000, "the exploration ran (\(count) sequences)")
        #expect(reuses.value > 0, "some inner started with an earlier inner's subscription made anew")
    }
}
}
