// Any `AsyncSequence` → `Flow`.
//
// Each subscription iterates the sequence in a task of its own, made when it subscribes (the
// flow is cold: a second subscription iterates again, which a one-shot sequence such as an
// `AsyncStream` only allows once), and cancelled when the subscription is. The task is a
// plain unstructured `Task(priority:)` created outside any actor, so the sequence runs on the
// global concurrent executor (the cooperative pool), never on the subscriber's actor, and the
// values arrive on that pool's threads. Pulling is paced by delivery: the next value is asked
// for once the subscriber's handler has returned from the previous one.
//
// Cancellation reaches the sequence as task cancellation; from then on nothing more is
// delivered and the subscriber is released at once, even if the sequence ignores
// cancellation and keeps its task waiting.

extension Flow where Element: Sendable {
    /// The values of an async sequence, iterated anew for each subscription, then finished;
    /// the failure is the sequence's own (`Never` for `AsyncStream`, the error type of a
    /// sequence that throws a typed one, `any Error` for `AsyncThrowingStream`).
    ///
    /// The sequence is iterated in a new task, at `priority`, on the global concurrent
    /// executor; cancelling the subscription cancels that task. RxSwift:
    /// `Observable.from(asyncSequence)` (RxSwift 6.5's `asObservable()`); Combine has none.
    ///
    /// ```swift
    /// let lines: Flow<String, any Error> = Flow(url.lines)
    /// let ticks = Flow(AsyncStream<Int> { continuation in … })        // Flow<Int, Never>
    /// let again = Flow(flow.values)                                    // round trip, same Failure
    /// ```
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
    @inlinable
    public init<Values: AsyncSequence & Sendable>(
        _ sequence: Values,
        priority: TaskPriority? = nil
    ) where Values.Element == Element, Values.Failure == Failure {
        self = .create { emitter in
            let task = Task(priority: priority) {
                var iterator = sequence.makeAsyncIterator()
                do throws(Failure) {
                    while let value = try await iterator.next(isolation: nil) {
                        guard emitter.drain.submit(.value(value)) else { return }
                    }
                    emitter.finish()
                } catch {
                    emitter.fail(error)
                }
            }
            return { task.cancel() }
        }
    }

    /// The values of an async sequence as a flow that fails with `any Error`: for a sequence
    /// whose failure type cannot be named (before macOS 15 and iOS 18, which introduced
    /// `AsyncSequence.Failure`), or to erase a typed one.
    ///
    /// Otherwise the same as ``init(_:priority:)``.
    ///
    /// ```swift
    /// let erased: Flow<Int, any Error> = Flow(erasing: typedSequence)
    /// ```
    @inlinable
    public init<Values: AsyncSequence & Sendable>(
        erasing sequence: Values,
        priority: TaskPriority? = nil
    ) where Values.Element == Element, Failure == any Error {
        self = .create { emitter in
            let task = Task(priority: priority) {
                var iterator = sequence.makeAsyncIterator()
                do {
                    while let value = try await iterator.next() {
                        guard emitter.drain.submit(.value(value)) else { return }
                    }
                    emitter.finish()
                } catch {
                    emitter.fail(error)
                }
            }
            return { task.cancel() }
        }
    }
}
