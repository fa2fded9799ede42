import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("Flow.subscribe(with:)", .timeLimit(.minutes(1)))
struct FlowSubscribeWithTests {
    @Test func theOwnerIsHandedToTheHandlers() {
        let owner = SubscribeWithOwner(name: "profile")
        let seen = Box<[String]>([])
        _ = Flow<Int, TestError>.sequence([1, 2]).subscribe(
            with: owner,
            onValue: { owner, value in seen.value.append("\(owner.name) \(value)") },
            onCompletion: { owner, completion in seen.value.append("\(owner.name) \(completion == .finished)") }
        )
        #expect(seen.value == ["profile 1", "profile 2", "profile true"])
    }

    @Test func theSubscriptionDoesNotKeepTheOwnerAlive() {
        let relay = LiveRelay<Int>()
        let seen = Box<[Int]>([])
        weak var weakOwner: SubscribeWithOwner?
        let token: CancellationToken
        do {
            let owner = SubscribeWithOwner()
            weakOwner = owner
            token = relay.flow.subscribe(with: owner) { _, value in seen.value.append(value) }
            relay.accept(1)
        }
        #expect(weakOwner == nil, "the token and the relay hold the subscription, not the owner")
        relay.accept(2)
        #expect(seen.value == [1])
        #expect(!token.isCancelled, "the subscription cancelled itself, not through its token")
    }

    @Test func onceTheOwnerIsGoneItCancelsItselfAtTheNextEvent() {
        let cancels = AtomicCounter()
        let emitter = Box<FlowEmitter<Int, Never>?>(nil)
        let source = Flow<Int, Never>.create { sink in
            emitter.value = sink
            sink.onCancel { cancels.increment() }
        }
        let seen = Box<[Int]>([])
        do {
            let owner = SubscribeWithOwner()
            _ = source.subscribe(with: owner) { _, value in seen.value.append(value) }
            emitter.value?.send(1)
        }
        #expect(cancels.value == 0, "nothing has happened since the owner went")
        emitter.value?.send(2)
        #expect(cancels.value == 1, "the first event after the owner went cancelled the source")
        emitter.value?.send(3)
        emitter.value?.finish()
        #expect(seen.value == [1])
        #expect(cancels.value == 1)
    }

    @Test func theCompletionIsNotDeliveredOnceTheOwnerIsGone() {
        let subject = LiveSubject<Int, Never>()
        let completions = AtomicCounter()
        do {
            let owner = SubscribeWithOwner()
            _ = subject.flow.subscribe(with: owner, onValue: { _, _ in }, onCompletion: { _, _ in completions.increment() })
        }
        subject.finish()
        #expect(completions.value == 0)
    }

    @Test func aSubjectReleasesTheSubscriberOnceTheOwnerIsGone() {
        let subject = LiveSubject<Int, Never>()
        weak var capture: Tracked?
        do {
            let owner = SubscribeWithOwner()
            let tracked = Tracked()
            capture = tracked
            _ = subject.flow.subscribe(with: owner) { _, _ in _ = tracked }
        }
        #expect(capture != nil, "the subject holds its subscriber until it hears the owner is gone")
        subject.send(1)
        #expect(capture == nil, "the subscription cancelled itself, and the subject let it go")
    }

    @Test func cancellingTheTokenStopsDelivery() {
        let owner = SubscribeWithOwner()
        let relay = LatestValueRelay(value: 0)
        let seen = Box<[Int]>([])
        let token = relay.flow.subscribe(with: owner) { _, value in seen.value.append(value) }
        relay.accept(1)
        token.cancel()
        relay.accept(2)
        #expect(seen.value == [0, 1])
    }
}
