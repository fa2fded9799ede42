/// One task asleep on a clock for a time-based operator: the operator arms a deadline, and the
/// timer calls `fire`, on the task, once the clock reaches it. The decisions are
/// ``FlowTimerStateMachine``'s, made under the lock; the task is started, resumed and cancelled
/// after unlocking.
///
/// The task starts with the first deadline and ends at ``end()`` (the operator completed or was
/// cancelled), which cancels its sleep at once and releases `fire` and what it holds. A tick that
/// comes late, or for a deadline that has moved, does no harm: the operator reads the clock itself.
///
/// ```swift
/// let timer = FlowTimer(clock: clock, tolerance: nil) { drain.submit((.tick, clock.now)) }
/// timer.arm(clock.now.advanced(by: .seconds(1)))
/// ```
@usableFromInline
final class FlowTimer<C: Clock>: Sendable {
    @usableFromInline typealias Machine = FlowTimerStateMachine<C.Instant>

    @usableFromInline let machine: Lock<Machine>
    @usableFromInline let clock: C
    @usableFromInline let tolerance: C.Duration?

    @inlinable
    init(clock: C, tolerance: C.Duration?, fire: @escaping Machine.Fire) {
        self.clock = clock
        self.tolerance = tolerance
        self.machine = .make(Machine(fire: fire))
    }

    /// Fires at `deadline` (replacing the deadline armed before), or at no time (`nil`).
    @inlinable
    func arm(_ deadline: C.Instant?) {
        switch machine.withLock({ $0.arm(deadline) }) {
        case .none: break
        case .startTask: startTask()
        case .resume(let continuation, let deadline): continuation.resume(returning: deadline)
        }
    }

    /// Ends the timer: nothing fires any more, the task ends.
    @inlinable
    func end() {
        let teardown = machine.withLock { $0.end() }
        teardown.task?.cancel()
        teardown.waiting?.resume(returning: nil)
    }

    @usableFromInline
    func startTask() {
        let task = Task { await self.run() }
        if !machine.withLock({ $0.taskStarted(task) }) { task.cancel() }
    }

    /// The task: sleep until the armed deadline, fire, wait while nothing is armed; until
    /// ``end()``.
    @usableFromInline
    func run() async {
        var wokeFrom: C.Instant?
        while true {
            let deadline: C.Instant
            switch machine.withLock({ $0.next(wokeFrom: wokeFrom) }) {
            case .sleep(let next):
                deadline = next
            case .fire(let fire):
                fire()
                wokeFrom = nil
                continue
            case .wait:
                let armed = await withUnsafeContinuation { (continuation: UnsafeContinuation<C.Instant?, Never>) in
                    if case .resume(let deadline) = machine.withLock({ $0.wait(continuation) }) {
                        continuation.resume(returning: deadline)
                    }
                }
                guard let armed else { return }
                deadline = armed
            case .end:
                return
            }
            do {
                try await clock.sleep(until: deadline, tolerance: tolerance)
            } catch {
                return  // cancelled: the timer ended
            }
            wokeFrom = deadline
        }
    }
}
