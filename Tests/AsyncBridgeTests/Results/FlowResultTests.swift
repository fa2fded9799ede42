import AsyncBridge
import AsyncBridgeTesting
import Testing

@Suite("Flow → Result values (asResult)", .timeLimit(.minutes(1)))
struct FlowResultTests {
    @Test func valuesBecomeSuccessesAndAFailureBecomesOneFailureThenFinished() {
        let flow = marbleFlow("ab#", failure: TestError(code: 4)).asResult()
        #expect(FlowRecorder(flow).events == [
            .value(.success("a")), .value(.success("b")), .value(.failure(TestError(code: 4))), .finished,
        ])
    }

    @Test func finishingPassesThrough() {
        let flow = marbleFlow("a|", failure: TestError()).asResult()
        #expect(FlowRecorder(flow).events == [.value(.success("a")), .finished])
    }

    @Test func cancellingReachesTheSource() {
        let outer = ManualOuterFlow<String, TestError>()
        let recorder = FlowRecorder(outer.flow.asResult())
        outer.send("a")
        recorder.cancel()
        outer.fail(TestError())
        #expect(outer.cancels == 1)
        #expect(recorder.events == [.value(.success("a"))])
    }

    /// Failing without terminating: one bad URL among three inside `flatMap`; its failure
    /// arrives as a value, and the request after it still runs.
    @Test func aFailingRequestInsideFlatMapDoesNotEndTheStream() {
        @Sendable func fetch(_ url: String) -> Flow<String, TestError> {
            url.contains("apethh") ? .fail(TestError(code: 404)) : .just("data of \(url)")
        }
        let urls = ["https://www.apeth.com/manny.jpg", "https://www.apethh.com/moe.jpg", "https://www.apeth.com/jack.jpg"]
        let responses = Flow<String, Never>.sequence(urls).flatMap { fetch($0).asResult() }
        #expect(FlowRecorder(responses).events == [
            .value(.success("data of https://www.apeth.com/manny.jpg")),
            .value(.failure(TestError(code: 404))),
            .value(.success("data of https://www.apeth.com/jack.jpg")),
            .finished,
        ])
    }

    @Test func withoutContainmentTheFirstFailingRequestEndsTheStreamAndCancelsTheOthers() {
        let outer = ManualOuterFlow<String, Never>()
        let requests = ManualInnerFlows<String, TestError>()
        let contained = FlowRecorder(outer.flow.flatMap { requests.flow($0).asResult() })
        let plain = ManualOuterFlow<String, TestError>()
        let plainRequests = ManualInnerFlows<String, TestError>()
        let uncontained = FlowRecorder(plain.flow.flatMap { plainRequests.flow($0) })
        for url in ["manny", "moe", "jack"] {
            outer.send(url)
            plain.send(url)
        }
        for inners in [requests, plainRequests] {
            inners.fail("moe", TestError(code: 404))
            inners.send("jack", "jack's data")
            inners.finish("jack")
            inners.send("manny", "manny's data")
            inners.finish("manny")
        }
        outer.finish()
        plain.finish()
        #expect(contained.events == [
            .value(.failure(TestError(code: 404))), .value(.success("jack's data")), .value(.success("manny's data")), .finished,
        ])
        #expect(uncontained.events == [.failure(TestError(code: 404))])
        #expect(plainRequests.cancels("manny") == 1 && plainRequests.cancels("jack") == 1)
        #expect(plain.cancels == 1)
    }
}
