import AsyncBridge
import AsyncBridgeTesting

/// Whether the object handed to `body` is gone once `body` has returned: `body` builds a flow
/// around a closure that holds it, and runs the subscription to its end (contract 5).
///
/// ```swift
/// let released = await trackedIsReleased { tracked in … recorder.cancel() }
/// #expect(released, "after cancellation")
/// ```
func trackedIsReleased(_ body: (Tracked) async -> Void) async -> Bool {
    weak var captured: Tracked?
    do {
        let tracked = Tracked()
        captured = tracked
        await body(tracked)
    }
    return captured == nil
}

/// Waits until the object handed to `body` is released, once `body` has returned: for a
/// subscription whose end the timer's task delivers. That task completes downstream from inside
/// the operator's drain and lets go of what the drain holds only as it leaves it, a moment after
/// the recorder has seen the completion. A leak makes the test hit its time limit.
///
/// ```swift
/// await waitForRelease { tracked in … await recorder.waitForCompletion() }
/// ```
func waitForRelease(_ body: (DeinitSignal) async -> Void) async {
    let released = CompletionSpy<Void>()
    await body(DeinitSignal(released))
    await released.firstCall()
}

extension ManualClock {
    /// For each count in `counts`: waits until the timer's task is asleep, moves time forward by
    /// `step`, and waits until `recorder` holds that many values.
    ///
    /// ```swift
    /// await clock.tick(by: .seconds(1), until: 1...3, of: recorder)   // three ticks, one a second
    /// ```
    func tick<Element, Failure>(by step: Duration, until counts: ClosedRange<Int>, of recorder: FlowRecorder<Element, Failure>) async {
        for count in counts {
            await waitForSleepers(1)
            advance(by: step)
            await recorder.waitForValues(count)
        }
    }
}
