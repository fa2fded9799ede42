import AsyncBridge
import AsyncBridgeOpenCombine
import Dispatch
import OpenCombine
import Testing

@Suite("Combine → SharedFuture: SharedFuture(_:), SharedFuture(firstValueOf:)", .timeLimit(.minutes(1)))
struct SharedFuturePublisherTests {
    @Test func aCombineFuturesValue() async throws {
        let future = Future<Int, TestError> { promise in promise(.success(5)) }
        #expect(try await SharedFuture(future).value == 5)
    }

    @Test func aCombineFuturesTypedFailure() async throws {
        let future = Future<Int, TestError> { promise in promise(.failure(TestError(code: 8))) }
        let shared: SharedFuture<Int, TestError> = SharedFuture(future)
        #expect(try await shared.result == .failure(TestError(code: 8)))
    }

    @Test func theFirstValueEndsTheCombineSubscription() async throws {
        let publisher = ManualPublisher<Int, TestError>()
        let future = SharedFuture(firstValueOf: publisher, ifEmpty: TestError(code: 0))
        #expect(publisher.subscriptions == 0, "lazy: nothing subscribed before a consumer")
        let result = Locked<Result<Int, any Error>?>(nil)
        let delivered = DispatchSemaphore(value: 0)
        future.subscribe { outcome in
            result.withLock { $0 = outcome }
            delivered.signal()
        }
        #expect(publisher.subscriptions == 1)
        #expect(publisher.requests == [.max(1)], "one value is all it asks for")
        publisher.send(1)
        #expect(waitedInTime(delivered))
        #expect(try result.current?.get() == 1)
        #expect(publisher.cancels == 1, "cancelled once the value arrived")
        #expect(publisher.subscriber == nil, "and released")
        // Later consumers share the stored result: no second subscription.
        #expect(try await future.value == 1)
        #expect(publisher.subscriptions == 1)
    }

    @Test func concurrentConsumersShareOneSubscription() async throws {
        let subject = PassthroughSubject<Int, Never>()
        let subscriptions = Counter()
        let future = SharedFuture(firstValueOf: subject.handleEvents(receiveSubscription: { _ in subscriptions.increment() }))
        let results = Locked<[Int]>([])
        let both = DispatchSemaphore(value: 0)
        for _ in 0..<2 {
            future.subscribe { result in
                if case .success(let value) = result { results.withLock { $0.append(value) } }
                both.signal()
            }
        }
        subject.send(3)
        #expect(waitedInTime(both) && waitedInTime(both))
        #expect(results.current == [3, 3])
        #expect(subscriptions.value == 1)
    }

    @Test func anEmptyPublisherFailsWithTheGivenTypedFailure() async throws {
        let future = SharedFuture(firstValueOf: Empty<Int, TestError>(), ifEmpty: TestError(code: 404))
        #expect(try await future.result == .failure(TestError(code: 404)))
    }

    @Test func anEmptyPublisherFailsWithNoValueWhenUntyped() async {
        let future = SharedFuture(firstValueOf: Empty<Int, Never>())
        await #expect(throws: AsyncBridgeError.noValue) { try await future.value }
    }

    @Test func theFailureIsForwarded() async throws {
        let typed = SharedFuture(firstValueOf: Fail<Int, TestError>(error: TestError(code: 2)), ifEmpty: TestError(code: 0))
        #expect(try await typed.result == .failure(TestError(code: 2)))
        let untyped = SharedFuture(firstValueOf: Fail<Int, TestError>(error: TestError(code: 3)))
        await #expect(throws: TestError(code: 3)) { try await untyped.value }
    }

    @Test func theLastConsumerLeavingCancelsTheCombineSubscription() {
        let publisher = ManualPublisher<Int, Never>()
        let future = SharedFuture(firstValueOf: publisher)
        let outcomes = Locked<[Result<Int, any Error>]>([])
        let first = future.subscribe { result in outcomes.withLock { $0.append(result) } }
        let second = future.subscribe { result in outcomes.withLock { $0.append(result) } }
        #expect(publisher.subscriptions == 1)
        first.cancel()
        #expect(publisher.cancels == 0, "another consumer still waits")
        second.cancel()
        #expect(publisher.cancels == 1)
        #expect(publisher.subscriber == nil, "the subscriber is released")
        #expect(publisher.subscription == nil, "the Combine subscription is released")
        #expect(outcomes.current.count == 2)
        #expect(outcomes.current.allSatisfy { result in
            if case .failure(let error) = result { error is CancellationError } else { false }
        })
        // A later consumer subscribes again.
        let third = future.subscribe { _ in }
        #expect(publisher.subscriptions == 2)
        third.cancel()
        #expect(publisher.cancels == 2)
    }

    @Test func aValueAfterTheCancellationIsIgnored() {
        let publisher = ManualPublisher<Int, Never>()
        let future = SharedFuture(firstValueOf: publisher)
        let outcomes = Locked<[Result<Int, any Error>]>([])
        let token = future.subscribe { result in outcomes.withLock { $0.append(result) } }
        let subscription = publisher.subscription
        token.cancel()
        // A publisher that ignores cancellation and sends anyway: nothing reaches the future.
        _ = subscription?.subscriber.current?.receive(1)
        #expect(outcomes.current.count == 1)
    }
}
