// The debug check of `onMainActor` needs `@testable`: debug builds only (the release run of the
// tests builds the library without testability).
#if DEBUG
@testable import AsyncBridge
#else
import AsyncBridge
#endif
import AsyncBridgeTesting
import Dispatch
import Foundation
import Testing

/// Main-actor handlers run on the main actor by construction: a `MainActorFlow` hops per
/// subscription, after anything shared.
@Suite("MainActorFlow: one hop per subscription, after the share", .timeLimit(.minutes(1)))
struct MainActorHopTests {
    /// A subscriber of `driver.flow` on another thread is delivering the replay when a new value
    /// comes. Before, the hop sat before the share, so that thread delivered the new value to
    /// every subscriber, the main-actor one included (`MainActor.assumeIsolated` trapped).
    @Test @MainActor func aSubscriberOnAnotherThreadNeverDeliversToAMainActorOne() async {
        let subject = LiveSubject<Int, Never>()
        let driver = subject.flow.driver()
        let bag = CancellationBag()
        let viewModel = Box<[(Int, Bool)]>([])
        driver.subscribe(onValue: { value in viewModel.mutate { $0.append((value, isOnMainQueue())) } }, onCompletion: { _ in })
            .store(in: bag)
        subject.send(1)
        await waitForMainQueue()
        let other = Box<[(Int, Bool)]>([])
        await withCheckedContinuation { (subscribed: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                let release = DispatchSemaphore(value: 0)
                driver.flow.subscribe(onValue: { value in
                    other.mutate { $0.append((value, isOnMainQueue())) }
                    guard !isOnMainQueue(), value == 1 else { return }
                    // Delivering the replay off the main queue (the bug): send 2 now, let the
                    // main queue hand it to the share, whose queue this thread holds, then go on.
                    DispatchQueue.global().async {
                        subject.send(2)
                        DispatchQueue.main.sync {}
                        release.signal()
                    }
                    release.wait()
                }, onCompletion: { _ in }).store(in: bag)
                subscribed.resume()
            }
        }
        DispatchQueue.global().async { subject.send(3) }
        for _ in 0..<4 { await waitForMainQueue() }
        while viewModel.value.count < 2 || other.value.count < 2 { await waitForMainQueue() }
        #expect(viewModel.value.allSatisfy { $0.1 }, "the main-actor subscriber got a value off the main thread")
        #expect(other.value.allSatisfy { $0.1 }, "driver.flow delivered off the main queue")
        #expect(viewModel.value.map(\.0).last == 3)
        bag.cancelAll()
    }

    @Test @MainActor func aDriverReplaysInsideSubscribeOnTheMainActorAndLaterOnTheMainQueueOtherwise() async {
        let subject = LiveSubject<Int, Never>()
        let driver = subject.flow.driver()
        let bag = CancellationBag()
        driver.subscribe(onValue: { _ in }, onCompletion: { _ in }).store(in: bag)
        subject.send(5)
        await waitForMainQueue()
        let late = Box<[Int]>([])
        driver.subscribe(onValue: { value in late.mutate { $0.append(value) } }, onCompletion: { _ in }).store(in: bag)
        #expect(late.value == [5], "a subscriber on the main actor gets the replay inside subscribe")
        let offMain = Box<[(Int, Bool)]>([])
        let subscribed = CompletionSpy<Void>()
        DispatchQueue.global().async {
            driver.flow.subscribe(onValue: { value in offMain.mutate { $0.append((value, isOnMainQueue())) } }, onCompletion: { _ in })
                .store(in: bag)
            subscribed.record(())
        }
        await subscribed.firstCall()
        await waitForMainQueue()
        #expect(offMain.value.map(\.0) == [5])
        #expect(offMain.value.allSatisfy { $0.1 }, "the replay reached another thread's subscriber off the main queue")
        bag.cancelAll()
    }

    #if DEBUG
    /// The debug check names the operator whose `@MainActor` closure was reached off the main
    /// actor.
    @Test func aMainActorClosureReachedOffTheMainActorStopsInDebugBuilds() async {
        await #expect(processExitsWith: .failure) {
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                onMainActor("MainActorFlow.subscribe(_:)") {}
                done.signal()
            }
            done.wait()
        }
    }
    #endif
}
