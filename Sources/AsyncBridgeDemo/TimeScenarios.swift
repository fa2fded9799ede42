import AsyncBridge

/// Everything that waits, on the real clock (`ContinuousClock`, the default) with durations of
/// milliseconds. (Tests drive the same operators with `ManualClock` instead, never sleeping.)
///
/// The flows below come from subjects, which send only to subscribers, so each consumer makes
/// its `values` iterator (which subscribes) before the first value is sent.
enum TimeScenarios {
    static func run() async throws {
        try await timeout()
        try await retry()
        await debounce()
        await throttle()
        try await delayAndFlowTimeout()
    }

    // MARK: withTimeout

    static func timeout() async throws {
        section("withTimeout: an answer in time, or TimeoutError and the request cancelled")
        let manager = UserManager.shared
        let ada = try await withTimeout(.seconds(1)) {
            try await withCompletion { manager.getUser(withUserID: "u1", completion: $0) }
        }
        print("withTimeout(1 s): a 50 ms request returned \(ada.name) in time")
        let requestCancelled = Signal()
        do {
            let user = try await withTimeout(.milliseconds(100)) {
                try await withCompletion { completion, onCancel in
                    let request = manager.getUser(withUserID: "u2", latencyMilliseconds: 10_000, completion: completion)
                    onCancel {
                        request.cancel()
                        requestCancelled.fire()
                    }
                }
            }
            print("withTimeout(100 ms): unexpected \(user)")
        } catch let error as TimeoutError {
            await requestCancelled.wait()
            print("withTimeout(100 ms): a 10 s request threw TimeoutError (\(error)), and the request's cancel action ran")
        }
    }

    // MARK: withRetry

    static func retry() async throws {
        section("withRetry: a flaky server, retried with exponential backoff")
        let manager = UserManager.shared
        let backoff = Backoff.exponential(initial: .milliseconds(10))
        var attempt = 0   // the operation runs in this task, so it may change local state
        let user = try await withRetry(backoff, maxAttempts: 4) {
            attempt += 1
            guard attempt >= 3 else {
                print("  attempt \(attempt) failed: \(APIError.busy); withRetry waits \(milliseconds(backoff.delay(beforeRetry: attempt))), then tries again")
                throw APIError.busy
            }
            return try await withCompletion { manager.getUser(withUserID: "u1", completion: $0) }
        }
        print("  attempt \(attempt) loaded \(user.name)")
        print("withRetry(.exponential(initial: 10 ms), maxAttempts: 4): succeeded on attempt \(attempt) of at most 4")
    }

    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return "\(seconds * 1000 + attoseconds / 1_000_000_000_000_000) ms"
    }

    // MARK: debounce, throttle

    static func debounce() async {
        section("debounce: search as you type, one query once typing pauses")
        let searchText = LiveSubject<String, Never>()
        var queries = searchText.flow.debounce(for: .milliseconds(100)).values.makeAsyncIterator()
        for text in ["s", "sw", "swi"] { searchText.send(text) }
        let afterPause = await queries.next() ?? "nothing"
        print("debounce(100 ms): typed s, sw, swi in one burst → one query, for \(afterPause), once 100 ms had passed without typing")
        for text in ["swif", "swift"] { searchText.send(text) }
        searchText.finish()   // the search field closes
        let atFinish = await readAll(&queries)
        print("debounce(100 ms): typed swif, swift, then the field closed → a query for \(list(atFinish)) at once: debounce sends the waiting value when its flow finishes (RxSwift; Combine drops it)")
    }

    static func throttle() async {
        section("throttle: at most one value per 100 ms")
        let taps = LiveSubject<String, Never>()
        var saves = taps.flow.throttle(for: .milliseconds(100), latest: false).values.makeAsyncIterator()
        for tap in ["tap 1", "tap 2", "tap 3"] { taps.send(tap) }
        taps.finish()
        let saved = await readAll(&saves)
        print("throttle(100 ms, latest: false): three quick taps on Save → a save for \(list(saved)) only: taps 2 and 3 came within 100 ms and were dropped")

        let offsets = LiveSubject<Int, Never>()
        var positions = offsets.flow.throttle(for: .milliseconds(100), latest: true).values.makeAsyncIterator()
        for offset in [10, 20, 30] { offsets.send(offset) }
        offsets.finish()
        let shown = await readAll(&positions)
        print("throttle(100 ms, latest: true): scroll offsets 10, 20, 30 in one burst → \(list(shown)): the first at once, then the newest when the 100 ms wait ended (30 replaced 20)")
    }

    /// The values left, until the flow ends.
    static func readAll<Element, Failure>(_ iterator: inout FlowValues<Element, Failure>.Iterator) async throws(Failure) -> [Element] {
        var read: [Element] = []
        while let value = try await iterator.next() { read.append(value) }
        return read
    }

    // MARK: delay, timeout

    static func delayAndFlowTimeout() async throws {
        section("delay and timeout on a Flow")
        let clock = ContinuousClock()
        let sent = clock.now
        let toast = try await Flow<String, Never>.just("Saved").delay(for: .milliseconds(100)).firstValue
        let waited = clock.now - sent
        print("delay(100 ms): the toast \(toast) arrived \(waited >= .milliseconds(100) ? "100 ms or more" : "less than 100 ms (unexpected)") after it was sent")

        let sensor = LiveSubject<Int, Never>()
        var readings = sensor.flow.timeout(.milliseconds(100)).values.makeAsyncIterator()
        sensor.send(21)
        var read: [Int] = []
        do {
            while let reading = try await readings.next() { read.append(reading) }
            print("timeout(100 ms): unexpected end after \(list(read))")
        } catch {
            print("timeout(100 ms): a sensor sent \(list(read)), then went silent; 100 ms later the flow failed with \(type(of: error)) (\(error))")
        }
    }
}
