import Testing
import AsyncBridge
import AsyncBridgeTesting

/// A subscription's cancel actions: the first kept inline, the others in an array.
@Suite("FlowSubscription", .timeLimit(.minutes(1)))
struct FlowSubscriptionTests {
    @Test func cancellingRunsEveryCancelActionOnceTheLatestRegisteredFirst() {
        let log = Box<[String]>([])
        // Registered on one subscription as it is subscribed: the outer handleEvents first,
        // then the inner one, then the source.
        let flow = Flow<Int, Never>.create { emitter in
            emitter.onCancel { log.mutate { $0.append("source") } }
        }
            .handleEvents(onCancel: { log.mutate { $0.append("inner") } })
            .handleEvents(onCancel: { log.mutate { $0.append("outer") } })
        let token = flow.subscribe(onValue: { _ in }, onCompletion: { _ in })
        token.cancel()
        token.cancel()
        #expect(log.value == ["source", "inner", "outer"])
    }
}
