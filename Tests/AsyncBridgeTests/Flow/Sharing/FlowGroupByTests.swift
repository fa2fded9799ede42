import Dispatch
import Testing
import AsyncBridge
import AsyncBridgeTesting

/// Subscribes to `groups` and records, per key, what each group's flow sends, subscribing to
/// each group as it arrives (in the handler that receives it).
private final class GroupsRecorder<Key: Hashable & Sendable, Element: Sendable>: Sendable {
    let outer: FlowRecorder<Key, TestError>
    private let recorders = Box<[Key: FlowRecorder<Element, TestError>]>([:])

    init(_ groups: Flow<FlowGroup<Key, Element, TestError>, TestError>) {
        let recorders = self.recorders
        outer = FlowRecorder(groups.map { group in
            recorders.mutate { $0[group.key] = FlowRecorder(group.flow) }
            return group.key
        })
    }

    subscript(key: Key) -> FlowRecorder<Element, TestError>? { recorders.value[key] }
    var groups: [FlowRecorder<Element, TestError>] { Array(recorders.value.values) }
}

@Suite("Flow: groupBy", .timeLimit(.minutes(1)))
struct FlowGroupByTests {
    @Test func groupsValuesByKeyAndASubscriptionInTheHandlerGetsTheFirst() {
        let source = ManualFlow<Int>()
        let recorder = GroupsRecorder(source.flow.groupBy { $0 % 2 })
        for value in 1...5 { source.send(value) }
        #expect(recorder.outer.values == [1, 0], "one group per key, when the key first appears")
        #expect(recorder[1]?.values == [1, 3, 5])
        #expect(recorder[0]?.values == [2, 4])
    }

    @Test func finishReachesEveryGroupThenTheOuterFlow() {
        let source = ManualFlow<String>()
        let order = Box<[String]>([])
        let groups = Box<[FlowGroup<String, String, TestError>]>([])
        let outer = source.flow.groupBy { $0 }.subscribe(onValue: { group in
            groups.mutate { $0.append(group) }
        }, onCompletion: { _ in order.mutate { $0.append("outer") } })
        source.send("a"); source.send("b")
        let tokens = groups.value.map { group in
            group.flow.subscribe(onValue: { _ in }, onCompletion: { _ in order.mutate { $0.append(group.key) } })
        }
        source.finish()
        #expect(order.value.count == 3 && order.value.last == "outer")
        #expect(Set(order.value.dropLast()) == ["a", "b"])
        let late = FlowRecorder(groups.value[0].flow)
        #expect(late.events == [.finished], "a group subscribed after the completion gets it at once")
        #expect(source.cancels.value == 0)
        _ = (outer, tokens)
    }

    @Test func failureReachesEveryGroupAndTheOuterFlow() {
        let source = ManualFlow<Int>()
        let recorder = GroupsRecorder(source.flow.groupBy { $0 % 2 })
        source.send(1); source.send(2)
        source.fail(TestError(code: 7))
        #expect(recorder.outer.events == [.value(1), .value(0), .failure(TestError(code: 7))])
        #expect(recorder[1]?.events == [.value(1), .failure(TestError(code: 7))])
        #expect(recorder[0]?.events == [.value(2), .failure(TestError(code: 7))])
    }

    @Test func aGroupThatNobodyWatchesLosesItsValues() {
        let source = ManualFlow<Int>()
        let groups = Box<[FlowGroup<Int, Int, TestError>]>([])
        let outer = source.flow.groupBy { $0 % 2 }.subscribe(onValue: { group in groups.mutate { $0.append(group) } }, onCompletion: { _ in })
        source.send(1); source.send(3)
        let odd = FlowRecorder(groups.value[0].flow)
        source.send(5)
        #expect(odd.values == [5])
        outer.cancel()
        odd.cancel()
    }

    /// RxSwift: the source stays subscribed while the outer subscription or any group's is.
    @Test func watchedGroupsOutliveTheOuterSubscription() {
        let source = ManualFlow<Int>()
        let recorder = GroupsRecorder(source.flow.groupBy { $0 % 2 })
        source.send(1)
        recorder.outer.cancel()
        #expect(source.cancels.value == 0, "the odd group is watched")
        source.send(3); source.send(2)
        #expect(recorder[1]?.values == [1, 3])
        #expect(recorder.outer.values == [1], "new groups reach nobody")
        #expect(recorder[0] == nil)
        recorder[1]?.cancel()
        #expect(source.cancels.value == 1, "cancelled when the last watcher left")
    }

    @Test func theOuterLeavingWithNoWatchedGroupCancelsAtOnce() {
        let source = ManualFlow<Int>()
        let groups = source.flow.groupBy { $0 % 2 }.prefix(1)
        let recorder = FlowRecorder(groups.map(\.key))
        source.send(1)
        #expect(recorder.events == [.value(1), .finished])
        #expect(source.cancels.value == 1)
    }

    @Test func theGroupsLeavingAfterTheOuterCancelsOnce() {
        let source = ManualFlow<Int>()
        let recorder = GroupsRecorder(source.flow.groupBy { $0 % 3 })
        for value in 0..<3 { source.send(value) }
        for group in recorder.groups { group.cancel() }
        #expect(source.cancels.value == 0, "the outer subscription is alive")
        recorder.outer.cancel()
        recorder.outer.cancel()
        #expect(source.cancels.value == 1)
    }

    @Test func aGroupSubscriberMayCancelTheOuterFromItsHandler() {
        let source = ManualFlow<Int>()
        let outer = Box<CancellationToken?>(nil)
        let seen = Box<[Int]>([])
        let inner = Box<CancellationToken?>(nil)
        outer.value = source.flow.groupBy { $0 % 2 }.subscribe(onValue: { group in
            inner.value = group.flow.subscribe(onValue: { value in
                seen.mutate { $0.append(value) }
                outer.value?.cancel()
            }, onCompletion: { _ in })
        }, onCompletion: { _ in })
        source.send(1); source.send(3); source.send(2)
        #expect(seen.value == [1, 3])
        #expect(source.cancels.value == 0)
        inner.value?.cancel()
        #expect(source.cancels.value == 1)
    }

    @Test func sendsAndSubscriptionsFromManyThreads() {
        let source = ManualFlow<Int>()
        let recorder = GroupsRecorder(source.flow.groupBy { $0 % 4 })
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for step in 0..<500 { source.send(thread + 4 * step) }
        }
        for key in 0..<4 {
            #expect(recorder[key]?.values == (0..<500).map { key + 4 * $0 }, "each thread's values, in its order")
        }
        for group in recorder.groups { group.cancel() }
        recorder.outer.cancel()
        #expect(source.cancels.value == 1)
    }

    @Test func groupSubscribersJoiningAndLeavingFromManyThreadsCancelOnceAtTheEnd() {
        let source = ManualFlow<Int>()
        let groups = Box<[FlowGroup<Int, Int, TestError>]>([])
        let outer = source.flow.groupBy { $0 % 2 }.subscribe(onValue: { group in groups.mutate { $0.append(group) } }, onCompletion: { _ in })
        source.send(0); source.send(1)
        let watched = groups.value
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for value in 0..<500 {
                if thread == 0 { source.send(value) } else { FlowRecorder(watched[thread % 2].flow).cancel() }
            }
        }
        let steady = FlowRecorder(watched[0].flow)
        outer.cancel()
        #expect(source.cancels.value == 0, "a group is watched")
        steady.cancel()
        #expect(source.cancels.value == 1)
    }

    @Test func nothingIsRetainedAfterCompletionOrCancellation() {
        weak var keyCapture: Tracked?
        weak var groupCapture: Tracked?
        for cancelling in [false, true] {
            let source = ManualFlow<Int>()
            do {
                let tracked = Tracked(), watcher = Tracked()
                keyCapture = tracked
                groupCapture = watcher
                let tokens = Box<[CancellationToken]>([])
                let outer = source.flow.groupBy { value -> Int in _ = tracked; return value % 2 }.subscribe(onValue: { group in
                    tokens.mutate { $0.append(group.flow.subscribe { _ in _ = watcher }) }
                }, onCompletion: { _ in })
                source.send(1); source.send(2)
                if cancelling {
                    outer.cancel()
                    for token in tokens.value { token.cancel() }
                } else {
                    source.finish()
                }
            }
            #expect(keyCapture == nil && groupCapture == nil, cancelling ? "after cancellation" : "after completion")
            #expect(source.cancels.value == (cancelling ? 1 : 0))
        }
    }

    /// The upstream's completion reaches the groups first; a group's handler that cancels the
    /// outer subscription then must keep the completion from it (nothing after a cancellation
    /// has returned, as a subject does for a handler that cancels another subscriber). Before
    /// the fix the outer subscriber was taken before the groups completed, and still got
    /// `.finished` after its cancellation had returned.
    @Test func aGroupHandlerCancellingTheOuterAtTheCompletionKeepsItFromTheOuter() {
        let source = ManualFlow<String>()
        let outerToken = Box<CancellationToken?>(nil)
        let groupTokens = Box<[CancellationToken]>([])
        let outerEvents = Box<[String]>([])
        outerToken.value = source.flow.groupBy { $0 }.subscribe(onValue: { group in
            outerEvents.mutate { $0.append(group.key) }
            let token = group.flow.subscribe(onValue: { _ in }, onCompletion: { _ in outerToken.value?.cancel() })
            groupTokens.mutate { $0.append(token) }
        }, onCompletion: { _ in outerEvents.mutate { $0.append("|") } })
        source.send("a")
        source.finish()
        #expect(groupTokens.value.count == 1)
        #expect(outerEvents.value == ["a"], "the outer was cancelled before its completion was delivered")
    }
}
