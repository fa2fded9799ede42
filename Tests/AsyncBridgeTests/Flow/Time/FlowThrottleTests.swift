import Testing
import AsyncBridge
import AsyncBridgeTesting

@Suite("Flow.throttle", .timeLimit(.minutes(1)))
struct FlowThrottleTests {
    @Test func latestSendsTheFirstValueAtOnceAndTheLatestAtTheEndOfEachWait() async {
        // No value comes just as a wait ends: on one `ManualClock` that would race with the
        // timer (see the tie below).
        let clock = ManualClock()
        let output = await clock.play("abc-de---f|", failure: Never?.none, expecting: "a--c--e--f|") {
            $0.throttle(for: .seconds(3), clock: clock, latest: true)
        }
        #expect(output == "a--c--e--f|")
    }

    @Test func aValueAtTheVeryEndOfAWaitIsSentAtOnceAndTheWaitingOneDropped() async {
        // RxSwift and swift-async-algorithms: `c` comes 2 s after `a` was sent, so it is not too
        // soon; `b`, which waited for that instant, is dropped.
        let clock = InputsFirstClock()
        let source = ManualFlow<String>()
        let throttled = source.flow.throttle(for: .seconds(2), clock: clock, latest: true)
        let recorder = FlowRecorder(throttled, clock: clock.time)
        source.send("a")
        clock.time.advance(by: .seconds(1))
        source.send("b")
        await clock.wakeups.waitForSleepers(1)   // the timer sleeps until the end of the wait
        clock.time.advance(by: .seconds(1))
        source.send("c")                          // at that very instant, before the timer wakes
        #expect(recorder.timeline(step: .seconds(1)) == "a-c")
        clock.wakeups.advance(to: clock.time.now)
        clock.time.advance(by: .seconds(1))
        source.finish()
        // The timer woke for the end of the wait: its task may still be inside the drain with
        // its tick, and then delivers the finish itself, a moment later.
        await recorder.waitForCompletion()
        #expect(recorder.events == [.value("a"), .value("c"), .finished], "nothing waits behind the finish")
        #expect(recorder.timeline(step: .seconds(1)) == "a-c|")
        #expect(clock.wakeups.sleeperCount == 0)
    }

    @Test func aFailureAtTheVeryEndOfAWaitPassesAtOnceAndDropsTheWaitingValue() async {
        // RxSwift: `b` waits for step 3, when the source fails; the failure goes out alone, as
        // during the wait. With `latest: false` nothing waits, so the failure passes alone too.
        let clock = InputsFirstClock()
        let output = await clock.play("ab-#", failure: TestError(), expecting: "a--#") {
            $0.throttle(for: .seconds(3), clock: clock, latest: true)
        }
        #expect(output == "a--#")
        let other = InputsFirstClock()
        let notLatest = await other.play("ab-#", failure: TestError(), expecting: "a--#") {
            $0.throttle(for: .seconds(3), clock: other, latest: false)
        }
        #expect(notLatest == "a--#")
    }

    @Test func aFinishAtTheVeryEndOfAWaitComesAfterTheWaitingValue() async {
        // RxSwift: the finish waits for the waiting value, whose wait ends at that instant.
        let clock = InputsFirstClock()
        let output = await clock.play("ab-|", failure: Never?.none, expecting: "a--[b|]") {
            $0.throttle(for: .seconds(3), clock: clock, latest: true)
        }
        #expect(output == "a--[b|]")
    }

    @Test func aSourceWhosePeriodDividesTheDurationGetsItsNewestValueOut() async {
        // Every end of a wait is a tie here: `d` and `g` come just as the waits end.
        let clock = InputsFirstClock()
        let output = await clock.play("abcdefgh|", failure: Never?.none, expecting: "a--d--g--[h|]") {
            $0.throttle(for: .seconds(3), clock: clock, latest: true)
        }
        #expect(output == "a--d--g--[h|]")
        let other = InputsFirstClock()
        let shorter = await other.play("abcd---e|", failure: Never?.none, expecting: "a-c-d--e|") {
            $0.throttle(for: .seconds(2), clock: other, latest: true)
        }
        #expect(shorter == "a-c-d--e|")
    }

    @Test func notLatestDropsWhatComesDuringTheWaitLikeRxSwift() async {
        let clock = ManualClock()
        // Combine would send `b` at step 2 (the first value of the wait, at its end).
        let output = await clock.play("abcd---e|", failure: Never?.none, expecting: "a-c----e|") {
            $0.throttle(for: .seconds(2), clock: clock, latest: false)
        }
        #expect(output == "a-c----e|")
    }

    @Test func theFinishWaitsForThePendingValue() async {
        let clock = ManualClock()
        let output = await clock.play("ab|", failure: Never?.none, expecting: "a--[b|]") {
            $0.throttle(for: .seconds(3), clock: clock, latest: true)
        }
        #expect(output == "a--[b|]")
        let other = ManualClock()
        let without = await other.play("a-|", failure: Never?.none, expecting: "a-|") {
            $0.throttle(for: .seconds(3), clock: other, latest: true)
        }
        #expect(without == "a-|", "nothing pending: the finish passes at once")
    }

    @Test func aFailurePassesAtOnceAndDropsThePendingValue() async {
        let clock = ManualClock()
        let output = await clock.play("ab#", failure: TestError(), expecting: "a-#") {
            $0.throttle(for: .seconds(3), clock: clock, latest: true)
        }
        #expect(output == "a-#")
    }

    @Test func valuesComeOutAtLeastTheDurationApart() async {
        let clock = ManualClock()
        // No value comes just as a wait ends (see the first test).
        let output = await clock.play("abc-ef-hi|", failure: Never?.none, expecting: "a--c--f--[i|]") {
            $0.throttle(for: .seconds(3), clock: clock, latest: true)
        }
        #expect(output == "a--c--f--[i|]")
    }

    @Test func cancellingDropsThePendingValueAndEndsTheTimer() async {
        let clock = ManualClock()
        let source = ManualFlow<Int>()
        let recorder = FlowRecorder(source.flow.throttle(for: .seconds(1), clock: clock, latest: true))
        source.send(1)
        source.send(2)
        await clock.waitForSleepers(1)
        recorder.cancel()
        #expect(clock.sleeperCount == 0)
        #expect(source.cancels.value == 1)
        clock.advance(by: .seconds(2))
        #expect(recorder.events == [.value(1)])
    }
}

/// A clock made of two `ManualClock`s: `time` gives `now`, and the timers sleep on `wakeups`.
/// A test can so put a value at the very instant a wait ends and have it handled before the
/// timer wakes for that instant: the order RxSwift's `TestScheduler` gives a hot observable's
/// events and the timers due at the same time. On one `ManualClock` the two race, because
/// `advance` wakes the timer's task, which may run before the test sends.
private struct InputsFirstClock: Clock {
    typealias Instant = ManualClock.Instant

    let time = ManualClock()
    let wakeups = ManualClock()

    var now: Instant { time.now }
    var minimumResolution: Duration { .zero }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try await wakeups.sleep(until: deadline, tolerance: tolerance)
    }

    /// `ManualClock.play` (one second per character, `#` failing with `failure`) with the order
    /// pinned: at each step the input's events are sent first, then the timers due at that step
    /// wake, then the player waits for the step's expected events.
    func play<Failure: Error>(
        _ input: String,
        failure: Failure?,
        expecting expected: String,
        _ transform: (Flow<String, Failure>) -> Flow<String, Failure>
    ) async -> String {
        let inputSteps = Self.steps(input), expectedSteps = Self.steps(expected)
        let subject = LiveSubject<String, Failure>()
        let recorder = FlowRecorder(transform(subject.flow), clock: time)
        var expectedValues = 0
        var expectsCompletion = false
        for index in 0..<max(inputSteps.count, expectedSteps.count) {
            if index > 0 { time.advance(by: .seconds(1)) }
            for symbol in index < inputSteps.count ? inputSteps[index] : [] {
                switch symbol {
                case "|": subject.finish()
                case "#":
                    guard let failure else { preconditionFailure("play: '#' needs a failure") }
                    subject.fail(failure)
                default: subject.send(symbol)
                }
            }
            wakeups.advance(to: time.now)
            for symbol in index < expectedSteps.count ? expectedSteps[index] : [] {
                if symbol == "|" || symbol == "#" { expectsCompletion = true } else { expectedValues += 1 }
            }
            if expectsCompletion {
                await recorder.waitForCompletion()
            } else {
                await recorder.waitForValues(expectedValues)
            }
        }
        recorder.cancel()
        return recorder.timeline(step: .seconds(1))
    }

    /// The symbols of each step of a timed marble diagram (`-`, a letter, `|`, `[…]`).
    private static func steps(_ diagram: String) -> [[String]] {
        var steps: [[String]] = []
        var group: [String]?
        for character in diagram {
            switch character {
            case "[": group = []
            case "]": steps.append(group ?? []); group = nil
            case "-": steps.append([])
            default:
                if group != nil { group?.append(String(character)) } else { steps.append([String(character)]) }
            }
        }
        return steps
    }
}
