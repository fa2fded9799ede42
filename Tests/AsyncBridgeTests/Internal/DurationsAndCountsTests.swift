import Foundation
import Testing
import AsyncBridge
import AsyncBridgeTesting

/// The one rule for durations and counts (README, "Durations and counts"): a value outside its
/// range stops the program when the operator is called, with a message naming the operator and
/// the value; zero, where it is in range, means no wait or none.
@Suite("Durations and counts: one rule", .timeLimit(.minutes(1)))
struct DurationsAndCountsTests {
    // MARK: out of range: a precondition failure naming the operator and the value

    /// Each case calls one operator with a value outside its range, and names what the
    /// precondition message must say.
    static let outOfRange: [(call: String, message: String)] = [
        ("debounce -1", "debounce(for:) needs a duration of at least zero, got -1.0 seconds"),
        ("throttle -1", "throttle(for:) needs a duration of at least zero, got -1.0 seconds"),
        ("delay -1", "delay(for:) needs a duration of at least zero, got -1.0 seconds"),
        ("delaySubscription -1", "delaySubscription(for:) needs a duration of at least zero, got -1.0 seconds"),
        ("collect(within:) -1", "collect(within:maxCount:) needs a timeSpan of at least zero, got -1.0 seconds"),
        ("timer(after:) -1", "Flow.timer(after:period:) needs a delay of at least zero, got -1.0 seconds"),
        ("interval 0", "Flow.interval(_:) needs a period of more than zero, got 0.0 seconds"),
        ("debounce tolerance -1", "debounce(for:) needs a tolerance of at least zero, got -1.0 seconds"),
        ("Flow.timeout 0", "timeout(_:) needs a duration of more than zero, got 0.0 seconds"),
        ("Flow.timeout -1", "timeout(_:) needs a duration of more than zero, got -1.0 seconds"),
        ("SharedFuture.timeout 0", "timeout(_:) needs a duration of more than zero, got 0.0 seconds"),
        ("withTimeout 0", "withTimeout(_:) needs a duration of more than zero, got 0.0 seconds"),
        ("withTimeout -1", "withTimeout(_:) needs a duration of more than zero, got -1.0 seconds"),
        ("AuthorizationGate timeout 0", "AuthorizationGate(timeout:) needs a timeout of more than zero, got 0.0 seconds"),
        ("prefix -1", "prefix(_:) needs a count of at least 0, got -1"),
        ("dropFirst -1", "dropFirst(_:) needs a count of at least 0, got -1"),
        ("collect 0", "collect(_:) needs a count of at least 1, got 0"),
        ("flatMap maxConcurrent 0", "flatMap(maxConcurrent:_:) needs a maxConcurrent of at least 1, got 0"),
        ("withRetry maxAttempts 0", "withRetry(_:maxAttempts:) needs a maxAttempts of at least 1, got 0"),
        ("ReplayingSubject bufferSize -1", "ReplayingSubject(bufferSize:) needs a bufferSize of at least 0, got -1"),
        ("Backoff.fixed -1", "Backoff.fixed(_:) needs a delay of at least zero, got -1.0 seconds"),
    ]

    @Test(arguments: outOfRange)
    func aValueOutOfRangeStopsWithAMessageNamingTheOperatorAndTheValue(_ call: String, _ message: String) async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [call] in
            await callOutOfRange(call)
        }
        #if DEBUG  // release builds stop without the message
        if let result {
            let output = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(output.contains("AsyncBridge: \(message)"), "\(output)")
        }
        #endif
    }

    // MARK: zero: no wait, or none

    @Test func aZeroDebounceSendsEveryValue() async {
        let clock = ManualClock()
        let output = await clock.play("ab-c|", failure: Never?.none, expecting: "ab-c|") {
            $0.debounce(for: .zero, clock: clock)
        }
        #expect(output == "ab-c|")
    }

    @Test func aZeroThrottleSendsEveryValueAtOnce() {
        let clock = ManualClock()
        let recorder = FlowRecorder(Flow<Int, Never>.sequence([1, 2, 3]).throttle(for: .zero, clock: clock, latest: false))
        #expect(recorder.events == [.value(1), .value(2), .value(3), .finished])
    }

    @Test func aZeroDelayKeepsTheOrderAndWaitsForNoTime() async {
        let clock = ManualClock()
        let recorder = FlowRecorder(Flow<Int, Never>.sequence([1, 2, 3]).delay(for: .zero, clock: clock))
        await recorder.waitForCompletion()
        #expect(recorder.events == [.value(1), .value(2), .value(3), .finished])
        #expect(clock.now == ManualClock.Instant(offset: .zero))
    }

    @Test func aZeroTimeSpanCollectsEachValueAlone() async {
        let clock = ManualClock()
        let recorder = FlowRecorder(Flow<Int, Never>.sequence([1, 2, 3]).collect(within: .zero, clock: clock))
        await recorder.waitForCompletion()
        #expect(recorder.events == [.value([1]), .value([2]), .value([3]), .finished])
    }

    @Test func zeroCountsTakeDropAndReplayNothing() {
        let numbers = Flow<Int, Never>.sequence([1, 2])
        #expect(FlowRecorder(numbers.prefix(0)).events == [.finished])
        #expect(FlowRecorder(numbers.dropFirst(0)).events == [.value(1), .value(2), .finished])
        let subject = ReplayingSubject<Int, Never>(bufferSize: 0)
        subject.send(1)
        #expect(FlowRecorder(subject.flow).events == [])
    }
}

/// Calls the operator that `call` names with a value outside its range (in an exit test's
/// process, which the precondition ends).
private func callOutOfRange(_ call: String) async {
    let clock = ManualClock()
    let flow = Flow<Int, Never>.just(1)
    switch call {
    case "debounce -1": _ = flow.debounce(for: .seconds(-1), clock: clock)
    case "throttle -1": _ = flow.throttle(for: .seconds(-1), clock: clock, latest: true)
    case "delay -1": _ = flow.delay(for: .seconds(-1), clock: clock)
    case "delaySubscription -1": _ = flow.delaySubscription(for: .seconds(-1), clock: clock)
    case "collect(within:) -1": _ = flow.collect(within: .seconds(-1), clock: clock)
    case "timer(after:) -1": _ = Flow<Int, Never>.timer(after: .seconds(-1), clock: clock)
    case "interval 0": _ = Flow<Int, Never>.interval(.zero, clock: clock)
    case "debounce tolerance -1": _ = flow.debounce(for: .seconds(1), tolerance: .seconds(-1), clock: clock)
    case "Flow.timeout 0": _ = flow.timeout(.zero, clock: clock)
    case "Flow.timeout -1": _ = flow.timeout(.seconds(-1), clock: clock, switchingTo: .empty)
    case "SharedFuture.timeout 0": _ = SharedFuture<Int, Never>.neverFailing { $0(1) }.timeout(.zero, clock: clock)
    case "withTimeout 0": _ = try? await withTimeout(.zero, clock: clock) { 1 }
    case "withTimeout -1": _ = try? await withTimeout(.seconds(-1), clock: clock) { 1 }
    case "AuthorizationGate timeout 0":
        _ = AuthorizationGate(timeout: .zero, clock: clock, status: { .notDetermined }, request: { _ in })
    case "prefix -1": _ = flow.prefix(-1)
    case "dropFirst -1": _ = flow.dropFirst(-1)
    case "collect 0": _ = flow.collect(0)
    case "flatMap maxConcurrent 0": _ = flow.flatMap(maxConcurrent: 0) { Flow<Int, Never>.just($0) }
    case "withRetry maxAttempts 0": _ = try? await withRetry(maxAttempts: 0, clock: clock) { 1 }
    case "ReplayingSubject bufferSize -1": _ = ReplayingSubject<Int, Never>(bufferSize: -1)
    case "Backoff.fixed -1": _ = Backoff.fixed(.seconds(-1))
    default: return  // an unknown case exits normally, and its test fails
    }
}
