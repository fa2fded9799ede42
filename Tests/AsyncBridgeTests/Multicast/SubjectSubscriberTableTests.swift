import Testing
import AsyncBridge
import AsyncBridgeTesting

/// The table of a subject's subscribers: slots that are reused, a list with holes that is
/// compacted, and a list lent to the deliverer that a change must not touch.
@Suite("Subjects: subscriber table", .timeLimit(.minutes(2)))
struct SubjectSubscriberTableTests {
    @Test func subscribersComingAndGoingInRandomOrderGetWhatWasSentWhileTheyWereThereInTheOrderTheyCame() {
        let subject = LiveSubject<Int, Never>()
        let log = Box<[(subscriber: Int, value: Int)]>([])
        var random = ChaosRandom(0x7AB1E)
        var present: [(index: Int, token: CancellationToken)] = []
        var expected: [[Int]] = []
        var released: [WeakTracked] = []
        for step in 0..<3_000 {
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<4:
                let index = expected.count
                let tracked = Tracked()
                released.append(WeakTracked(tracked))
                expected.append([])
                let token = subject.flow.subscribe(onValue: { value in
                    _ = tracked
                    log.mutate { $0.append((index, value)) }
                }, onCompletion: { _ in })
                present.append((index, token))
            case 4..<7 where !present.isEmpty:
                present.remove(at: Int.random(in: 0..<present.count, using: &random)).token.cancel()
            default:
                subject.send(step)
                for subscriber in present { expected[subscriber.index].append(step) }
            }
        }
        for subscriber in present { subscriber.token.cancel() }
        let entries = log.value
        let received = Dictionary(grouping: entries, by: \.subscriber).mapValues { $0.map(\.value) }
        for (index, values) in expected.enumerated() {
            #expect(received[index, default: []] == values, "subscriber \(index), seed \(chaosSeedText)")
        }
        let recipients = Dictionary(grouping: entries, by: \.value).mapValues { $0.map(\.subscriber) }
        #expect(recipients.values.allSatisfy { $0 == $0.sorted() }, "each value reaches its subscribers in the order they came")
        #expect(released.allSatisfy { $0.object == nil }, "every subscriber let go once cancelled")
    }

    @Test func aHandlerThatCancelsMostSubscribersDuringASendLeavesTheOthersTheValueInFlight() {
        // Enough cancellations, from the delivering thread, to compact the list while the
        // deliverer is going through it.
        let subject = LiveSubject<Int, Never>()
        let count = 64
        let cancelled = 1..<48
        let tokens = Box<[CancellationToken]>([])
        let received = Box<[Int: [Int]]>([:])
        weak var firstCancelled: Tracked?
        for index in 0..<count {
            let tracked = Tracked()
            if index == cancelled.lowerBound { firstCancelled = tracked }
            let token = subject.flow.subscribe(onValue: { value in
                _ = tracked
                received.mutate { $0[index, default: []].append(value) }
                if index == 0, value == 1 { for token in tokens.value[cancelled] { token.cancel() } }
            }, onCompletion: { _ in })
            tokens.mutate { $0.append(token) }
        }
        subject.send(1)
        #expect(firstCancelled == nil, "released once the send returned")
        subject.send(2)
        for index in 0..<count {
            #expect(received.value[index] == (cancelled.contains(index) ? nil : [1, 2]), "subscriber \(index)")
        }
        for token in tokens.value { token.cancel() }
    }

    @Test func aSubscriberCancelledBeforeItsTurnDoesNotJoinWhenAnotherTakesItsSlot() {
        let subject = LiveSubject<Int, Never>()
        let cancelledEarly = Box<[Int]>([])
        let cameAfter = Box<[Int]>([])
        let later = Box<CancellationToken?>(nil)
        let trigger = subject.flow.subscribe(onValue: { value in
            guard value == 1 else { return }
            // Both subscriptions are queued behind this value; the second takes the slot the
            // first left.
            subject.flow.subscribe(onValue: { cancelledEarly.value.append($0) }, onCompletion: { _ in }).cancel()
            later.value = subject.flow.subscribe(onValue: { cameAfter.value.append($0) }, onCompletion: { _ in })
        }, onCompletion: { _ in })
        subject.send(1)
        subject.send(2)
        #expect(cancelledEarly.value == [])
        #expect(cameAfter.value == [2])
        trigger.cancel()
        later.value?.cancel()
    }

    @Test func manySubscribersAddedFromAHandlerJoinAfterTheCurrentValueInTheOrderTheyCame() {
        let subject = LiveSubject<Int, Never>()
        let log = Box<[(subscriber: Int, value: Int)]>([])
        let added = Box<[CancellationToken]>([])
        let trigger = subject.flow.subscribe(onValue: { value in
            guard value == 1 else { return }
            for index in 0..<100 {
                let token = subject.flow.subscribe(onValue: { value in log.mutate { $0.append((index, value)) } }, onCompletion: { _ in })
                added.mutate { $0.append(token) }
            }
        }, onCompletion: { _ in })
        subject.send(1)
        subject.send(2)
        for token in added.value.enumerated().filter({ $0.offset % 2 == 1 }).map(\.element) { token.cancel() }
        subject.send(3)
        let entries = log.value
        #expect(entries.filter { $0.value == 1 }.isEmpty)
        #expect(entries.filter { $0.value == 2 }.map(\.subscriber) == Array(0..<100))
        #expect(entries.filter { $0.value == 3 }.map(\.subscriber) == Array(stride(from: 0, to: 100, by: 2)))
        trigger.cancel()
        for token in added.value { token.cancel() }
    }
}

/// A weak reference to a `Tracked`, to keep in an array.
struct WeakTracked {
    weak var object: Tracked?

    init(_ object: Tracked) {
        self.object = object
    }
}
