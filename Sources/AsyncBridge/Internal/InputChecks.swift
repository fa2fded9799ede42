// The library's one rule for the durations and counts its operators take (README, "Durations and
// counts"): a value outside its range is a programming error, stopped when the operator is
// called, in release builds too, with a message that names the operator and the value. Zero is in
// range where it means something: no wait (delay, debounce, throttle, backoff), none kept (replay
// and buffer sizes), nothing taken or dropped (prefix, dropFirst). Timeouts and periods need more
// than zero, and counts of work to do at least one.

/// Stops the program unless `duration` is at least zero (or, with `allowingZero: false`, more
/// than zero).
///
/// ```swift
/// checkDuration(duration, of: "debounce(for:)")   // -1 s: "AsyncBridge: debounce(for:) needs a
///                                                  // duration of at least zero, got -1.0 seconds"
/// ```
@inlinable
func checkDuration<D: DurationProtocol>(
    _ duration: D,
    of operation: StaticString,
    named name: StaticString = "duration",
    allowingZero: Bool = true
) {
    if allowingZero {
        precondition(duration >= .zero, "AsyncBridge: \(operation) needs a \(name) of at least zero, got \(duration)")
    } else {
        precondition(duration > .zero, "AsyncBridge: \(operation) needs a \(name) of more than zero, got \(duration)")
    }
}

/// Stops the program if `tolerance` is negative (`nil` leaves the leeway to the clock).
///
/// ```swift
/// checkTolerance(tolerance, of: "debounce(for:)")
/// ```
@inlinable
func checkTolerance<D: DurationProtocol>(_ tolerance: D?, of operation: StaticString) {
    if let tolerance { checkDuration(tolerance, of: operation, named: "tolerance") }
}

/// Stops the program unless `count` is at least `minimum`.
///
/// ```swift
/// checkCount(count, of: "prefix(_:)", atLeast: 0)   // -1: "AsyncBridge: prefix(_:) needs a
///                                                   // count of at least 0, got -1"
/// ```
@inlinable
func checkCount(_ count: Int, of operation: StaticString, named name: StaticString = "count", atLeast minimum: Int) {
    precondition(count >= minimum, "AsyncBridge: \(operation) needs a \(name) of at least \(minimum), got \(count)")
}
