@_spi(AsyncBridgeInternals) import AsyncBridge
import Dispatch
import Testing

extension Chaos {
    /// `flow.values` and `BroadcastChannel` consumers cancelled at random while producer threads
    /// send (and, with `.blockingProducer`, are held): no producer stays held, nothing is lost
    /// that the API does not report (received + dropped == sent), no consumer hangs.
    @Suite("Chaos: values and BroadcastChannel", .timeLimit(.minutes(2)))
    struct ConsumerChaosTests {
        static let rounds = 16
        static let producers = 2
        static let valuesPerProducer = 200
        static let consumers = 3

        /// What one consumer saw.
        struct Consumed: Sendable {
            var values: [Int] = []
            var stoppedEarly = false
        }

        /// Per consumer: values taken, values dropped (its `onDrop`), and whether it was cancelled.
        final class Ledger: Sendable {
            struct Entry {
                var consumed = Consumed()
                var dropped = 0
                var cancelled = false
            }

            let entries = SharedLock([Entry](repeating: Entry(), count: ConsumerChaosTests.consumers))
            func dropped(by consumer: Int) { entries.withLock { $0[consumer].dropped += 1 } }
            func consumed(_ consumed: Consumed, by consumer: Int) { entries.withLock { $0[consumer].consumed = consumed } }
            func cancelled(_ consumer: Int) { entries.withLock { $0[consumer].cancelled = true } }
            var all: [Entry] { entries.withLock { $0 } }
        }

        static func policy(_ random: inout ChaosRandom) -> FlowBufferingPolicy {
            switch Int.random(in: 0..<4, using: &random) {
            case 0: .unbounded
            case 1: .bufferingNewest(Int.random(in: 0...8, using: &random))
            case 2: .bufferingOldest(Int.random(in: 0...8, using: &random))
            default: .blockingProducer(limit: Int.random(in: 1...8, using: &random))
            }
        }

        @Test func valuesConsumersCancelledWhileProducersAreHeldLoseNothingUnreported() async {
            var figures = ChaosFigures(suite: "values")
            figures.threads = Self.producers
            for round in 0..<Self.rounds {
                let live = ChaosLiveObjects()
                let (events, cancels) = await live.track { await Self.valuesRound(round, live: live) }
                await figures.record("values round \(round)", events: events, cancels: cancels, live: live)
            }
            figures.notes.append("\(Self.consumers) consuming tasks a round")
            figures.print()
        }

        static func valuesRound(_ round: Int, live: ChaosLiveObjects) async -> (events: Int, cancels: Int) {
            var random = ChaosRandom(6, UInt64(round))
            let policies = (0..<consumers).map { _ in policy(&random) }
            let stopAfter = (0..<consumers).map { _ in random.chance(25) ? Int.random(in: 1...100, using: &random) : nil }
            let cancelAt = (0..<consumers).map { _ in random.chance(35) ? Int.random(in: 0..<valuesPerProducer, using: &random) : nil }
            let context = "values round \(round), \(policies), stop after \(stopAfter), cancel at \(cancelAt), seed \(chaosSeedText)"

            let subject = LiveSubject<Int, Never>()
            let ledger = Ledger()
            // Subscribed here, before any value is sent; each iterator is then handed to its task.
            let tasks = (0..<consumers).map { consumer in
                var iterator = subject.flow.values(bufferingPolicy: policies[consumer]) { _ in ledger.dropped(by: consumer) }
                    .makeAsyncIterator()
                return Task {
                    var consumed = Consumed()
                    while let value = await iterator.next() {
                        consumed.values.append(value)
                        if consumed.values.count == stopAfter[consumer] {
                            consumed.stoppedEarly = true
                            break
                        }
                    }
                    ledger.consumed(consumed, by: consumer)
                }
            }
            let producersEnded = await onThreads(producers, tracking: live, seconds: poolDeadlockSeconds) { producer in
                for sequence in 0..<valuesPerProducer {
                    subject.send(producer * 1_000_000 + sequence)
                    // The first producer also cancels consumers, possibly while it is held.
                    for consumer in 0..<consumers where producer == 0 && cancelAt[consumer] == sequence {
                        ledger.cancelled(consumer)
                        tasks[consumer].cancel()
                    }
                }
            }
            #expect(producersEnded, "no producer stayed held: all ended within \(poolDeadlockSeconds) s (\(context))")
            subject.finish()
            for task in tasks { await task.value }

            let sent = producers * valuesPerProducer
            var events = 0
            for (consumer, entry) in ledger.all.enumerated() {
                let taken = entry.consumed.values.count
                events += taken
                if case .blockingProducer = policies[consumer] {
                    #expect(entry.dropped == 0, "consumer \(consumer) dropped nothing (\(context))")
                }
                if !entry.cancelled && !entry.consumed.stoppedEarly {
                    #expect(taken + entry.dropped == sent, "consumer \(consumer): \(taken) taken + \(entry.dropped) dropped (\(context))")
                } else {
                    #expect(taken + entry.dropped <= sent, "consumer \(consumer) (\(context))")
                }
                // Each producer's values in order.
                for (producer, values) in Dictionary(grouping: entry.consumed.values, by: { $0 / 1_000_000 }) {
                    #expect(values == values.sorted(), "consumer \(consumer), producer \(producer): in order (\(context))")
                }
            }
            return (events, ledger.all.filter(\.cancelled).count)
        }

        @Test func broadcastChannelConsumersCancelledAtRandomLoseNothingUnreported() async {
            var figures = ChaosFigures(suite: "BroadcastChannel")
            figures.threads = Self.producers
            for round in 0..<Self.rounds {
                let live = ChaosLiveObjects()
                let (events, cancels) = await live.track { await Self.channelRound(round, live: live) }
                await figures.record("BroadcastChannel round \(round)", events: events, cancels: cancels, live: live)
            }
            figures.notes.append("\(Self.consumers) consuming tasks and one flow subscriber a round")
            figures.print()
        }

        static func channelRound(_ round: Int, live: ChaosLiveObjects) async -> (events: Int, cancels: Int) {
            var random = ChaosRandom(7, UInt64(round))
            let policy: ChannelBufferingPolicy = switch Int.random(in: 0..<3, using: &random) {
            case 0: .unbounded
            case 1: .bufferingNewest(Int.random(in: 0...8, using: &random))
            default: .bufferingOldest(Int.random(in: 0...8, using: &random))
            }
            // Half the rounds cancel nobody: then every value is taken or reported dropped.
            let cancels = random.chance(50)
            let cancelAt = (0..<consumers).map { _ in cancels && random.chance(60) ? Int.random(in: 0..<valuesPerProducer, using: &random) : nil }
            let cancelFlowAt = cancels ? Int.random(in: 0..<valuesPerProducer, using: &random) : nil
            let context = "BroadcastChannel round \(round), \(policy), cancel at \(cancelAt), flow cancelled at \(String(describing: cancelFlowAt)), seed \(chaosSeedText)"

            let dropped = SharedLock(0)
            let channel = BroadcastChannel<Int, Never>(bufferingPolicy: policy) { _ in dropped.withLock { $0 += 1 } }
            let ledger = Ledger()
            // Started here, before any value is sent; each iterator is then handed to its task.
            let tasks = (0..<consumers).map { consumer in
                var iterator = channel.makeAsyncIterator()
                return Task {
                    var consumed = Consumed()
                    while let value = await iterator.next() { consumed.values.append(value) }
                    ledger.consumed(consumed, by: consumer)
                }
            }
            // A flow subscriber too, fed by a task of the channel's; checked for the grammar only
            // (its drops are not told apart from the loops').
            let probe = GrammarProbe<Int, Never>("channel.flow")
            probe.subscribe(to: channel.flow)
            let producersEnded = await onThreads(producers, tracking: live, seconds: poolDeadlockSeconds) { producer in
                for sequence in 0..<valuesPerProducer {
                    channel.send(producer * 1_000_000 + sequence)
                    guard producer == 0 else { continue }
                    for consumer in 0..<consumers where cancelAt[consumer] == sequence {
                        ledger.cancelled(consumer)
                        tasks[consumer].cancel()
                    }
                    if sequence == cancelFlowAt { probe.cancel() }
                }
            }
            #expect(producersEnded, "the producers ended within \(poolDeadlockSeconds) s (\(context))")
            channel.finish()
            for task in tasks { await task.value }

            let sent = producers * valuesPerProducer
            var events = 0
            var taken = 0
            for (consumer, entry) in ledger.all.enumerated() {
                events += entry.consumed.values.count
                taken += entry.consumed.values.count
                #expect(entry.consumed.values.count <= sent, "consumer \(consumer) (\(context))")
                for (producer, values) in Dictionary(grouping: entry.consumed.values, by: { $0 / 1_000_000 }) {
                    #expect(values == values.sorted(), "consumer \(consumer), producer \(producer): in order (\(context))")
                }
                if case .unbounded = policy, !entry.cancelled {
                    #expect(entry.consumed.values.count == sent, "consumer \(consumer) took everything (\(context))")
                }
            }
            if !cancels {
                // The flow subscriber's drops go to the same onDrop; it is not cancelled either, but
                // it may not have finished taking its values yet: wait for its completion below.
                #expect(await waitOffThePool(probe.completed, seconds: poolDeadlockSeconds), "the flow subscriber finished within \(poolDeadlockSeconds) s (\(context))")
                let flowTaken = probe.values.count
                #expect(taken + flowTaken + dropped.withLock { $0 } == (consumers + 1) * sent,
                        "taken \(taken) + flow \(flowTaken) + dropped \(dropped.withLock { $0 }) (\(context))")
            }
            #expect(probe.violations == [], "(\(context))")
            events += probe.values.count + probe.completions.count
            probe.cancel()
            probe.release()
            return (events, cancelAt.compactMap { $0 }.count + (cancelFlowAt == nil ? 0 : 1))
        }
    }
}
