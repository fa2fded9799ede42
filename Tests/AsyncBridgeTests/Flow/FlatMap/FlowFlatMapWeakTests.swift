import AsyncBridge
import AsyncBridgeTesting
import Testing

@Suite("Flow: weak-capture flatMap variants", .timeLimit(.minutes(1)))
struct FlowFlatMapWeakTests {
    /// The four weak-capture operators, each with its owner.
    enum WeakVariant: String, CaseIterable, CustomTestStringConvertible {
        case flatMap, flatMapLatest, flatMapFirst, flatMapWithIndex

        var testDescription: String { "\(rawValue)(weak:)" }

        func apply(
            _ outer: Flow<String, TestError>,
            owner: FlatMapOwner,
            _ selector: @escaping @Sendable (FlatMapOwner, String) -> Flow<String, TestError>
        ) -> Flow<String, TestError> {
            switch self {
            case .flatMap: outer.flatMap(weak: owner, selector)
            case .flatMapLatest: outer.flatMapLatest(weak: owner, selector)
            case .flatMapFirst: outer.flatMapFirst(weak: owner, selector)
            case .flatMapWithIndex: outer.flatMapWithIndex(weak: owner) { owner, value, _ in selector(owner, value) }
            }
        }
    }

    @Test(arguments: WeakVariant.allCases)
    func passesTheOwnerAndTheValueToTheSelector(_ variant: WeakVariant) {
        let owner = FlatMapOwner(name: "Ada")
        let flow = variant.apply(marbleFlow("a|", failure: TestError()), owner: owner) { owner, value in
            Flow.just("\(owner.name):\(value)")
        }
        #expect(FlowRecorder(flow).events == [.value("Ada:a"), .finished])
    }

    @Test(arguments: WeakVariant.allCases)
    func neverRetainsTheOwnerAndProducesNothingOnceItIsGone(_ variant: WeakVariant) {
        let outer = ManualOuterFlow<String, TestError>()
        let inners = ManualInnerFlows<String, TestError>()
        let selected = Box<[String]>([])
        weak var weakOwner: FlatMapOwner?
        let recorder: FlowRecorder<String, TestError>
        do {
            let owner = FlatMapOwner(name: "view model")
            weakOwner = owner
            recorder = FlowRecorder(variant.apply(outer.flow, owner: owner) { owner, value in
                selected.value.append(value)
                return inners.flow(value)
            })
            outer.send("a")
            inners.send("a", "1")
            inners.finish("a")
        }
        #expect(weakOwner == nil, "the subscribed flow does not keep the owner alive")
        outer.send("b")
        outer.send("c")
        #expect(selected.value == ["a"], "the selector is not called once the owner is gone")
        #expect(inners.subscribed == ["a"])
        outer.finish()
        #expect(recorder.events == marbles("1|"), "the outer flow goes on to its own completion")
    }

    @Test func anInnerAlreadyRunningWhenTheOwnerGoesKeepsRunning() {
        let outer = ManualOuterFlow<String, TestError>()
        let inners = ManualInnerFlows<String, TestError>()
        weak var weakOwner: FlatMapOwner?
        let recorder: FlowRecorder<String, TestError>
        do {
            let owner = FlatMapOwner(name: "view model")
            weakOwner = owner
            recorder = FlowRecorder(outer.flow.flatMap(weak: owner) { _, value in inners.flow(value) })
            outer.send("a")
        }
        #expect(weakOwner == nil)
        inners.send("a", "1")
        inners.finish("a")
        outer.finish()
        #expect(recorder.events == marbles("1|"))
    }

    @Test func aQueuedValueIsCheckedWhenItsTurnComes() {
        let outer = ManualOuterFlow<String, TestError>()
        let inners = ManualInnerFlows<String, TestError>()
        weak var weakOwner: FlatMapOwner?
        let recorder: FlowRecorder<String, TestError>
        do {
            let owner = FlatMapOwner(name: "view model")
            weakOwner = owner
            recorder = FlowRecorder(outer.flow.flatMap(weak: owner, maxConcurrent: 1) { _, value in inners.flow(value) })
            outer.send("a")
            outer.send("b")  // queued behind "a"
        }
        #expect(weakOwner == nil)
        inners.finish("a")
        #expect(inners.subscribed == ["a"], "b's turn came after the owner was gone")
        outer.finish()
        #expect(recorder.events == marbles("|"))
    }

    @Test func theIndexStillCountsValuesMappedToNothing() {
        let owner = Box<FlatMapOwner?>(FlatMapOwner(name: "owner"))
        weak let weakOwner = owner.value
        let outer = ManualOuterFlow<String, TestError>()
        let recorder = FlowRecorder(outer.flow.flatMapWithIndex(weak: owner.value!) { owner, value, index in
            Flow.just("\(value)\(index)")
        })
        outer.send("a")
        owner.value = nil
        #expect(weakOwner == nil)
        outer.send("b")
        outer.send("c")
        #expect(recorder.values == ["a0"])
        let second = Box<FlatMapOwner?>(FlatMapOwner(name: "second"))
        let other = FlowRecorder(marbleFlow("xyz|", failure: TestError()).flatMapWithIndex(weak: second.value!) { _, value, index in
            index == 1 ? Flow.empty : Flow.just("\(value)\(index)")
        })
        #expect(other.events == [.value("x0"), .value("z2"), .finished])
    }

    @Test func loginThenPostsCallsAMethodOfTheWeakOwnerWithoutOptionalSelf() {
        final class PostsScreen: Sendable {
            func loadPosts(for user: String) -> Flow<String, TestError> { .sequence(["\(user)'s first post", "\(user)'s second post"]) }
        }
        let screen = PostsScreen()
        let login = Flow<String, TestError>.just("ada")
        let posts = login.flatMap(weak: screen) { screen, user in screen.loadPosts(for: user) }
        #expect(FlowRecorder(posts).values == ["ada's first post", "ada's second post"])
    }
}
