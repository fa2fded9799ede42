// Any `AsyncSequence` → `Flow`.
//
// Each subscription iterates the sequence in a task of its own, made when it subscribes (the
// flow is cold: a second subscription iterates again, which a one-shot sequence such as an
// `AsyncStream` only allows once), and cancelled when the subscription is. Where it runs is
// the caller's choice, never an accident of where `subscribe` was called: on the actor passed
// as `on:` (the main actor, say), or by default on the global concurrent executor (the
// cooperative pool); the values arrive there. Pulling is paced by delivery: the next value is asked
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
    /// The sequence is iterated in a new task, at `priority`, isolated to `actor` (`nil`: on
    /// the global concurrent executor); cancelling the subscription cancels that task. RxSwift:
    /// `asyncSequence.asObservable()`; Combine has none.
    ///
    /// ```swift
    /// let lines: Flow<String, any Error> = Flow(url.lines)
    /// let ticks = Flow(AsyncStream<Int> { continuation in … })        // Flow<Int, Never>
    /// let again = Flow(flow.values)                                    // round trip, same Failure
    /// let onMain = Flow(locationUpdates, on: MainActor.shared)         // iterated on the main actor
    /// ```
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
    @inlinable
    public init<Values: AsyncSequence & Sendable>(
        _ sequence: Values,
        on actor: (any Actor)? = nil,
        priority: TaskPriority? = nil
    ) where Values.Element == Element, Values.Failure == Failure {
        self = .create { emitter in
            let task = Task(priority: priority) {
                await Self.iterate(sequence, into: emitter, isolation: actor)
            }
            return { task.cancel() }
        }
    }

    /// Runs on `isolation` (or the global executor when it is `nil`) for the whole iteration.
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
    @inlinable
    static func iterate<Values: AsyncSequence & Sendable>(
        _ sequence: Values,
        into emitter: FlowEmitter<Element, Failure>,
        isolation: isolated (any Actor)?
    ) async where Values.Element == Element, Values.Failure == Failure {
        var iterator = sequence.makeAsyncIterator()
        do throws(Failure) {
            while let value = try await iterator.next(isolation: isolation) {
                guard emitter.drain.submit(.value(value)) else { return }
            }
            emitter.finish()
        } catch {
            emitter.fail(error)
        }
    }

    /// The values of an async sequence as a flow that fails with `any Error`: for a sequence
    /// whose failure type cannot be named (before macOS 15 and iOS 18, which introduced
    /// `AsyncSequence.Failure`), or to erase a typed one.
    ///
    /// Otherwise the same as ``init(_:on:priority:)``.
    ///
    /// ```swift
    /// let erased: Flow<Int, any Error> = Flow(erasing: typedSequence)
    /// ```
    @inlinable
    public init<Values: AsyncSequence & Sendable>(
        erasing sequence: Values,
        on actor: (any Actor)? = nil,
        priority: TaskPriority? = nil
    ) where Values.Element == Element, Failure == any Error {
        self = .create { emitter in
            let task = Task(priority: priority) {
                await Self.iterate(erasing: sequence, into: emitter, isolation: actor)
            }
            return { task.cancel() }
        }
    }

    /// Runs on `isolation` (or the global executor when it is `nil`) for the whole iteration.
    @inlinable
    static func iterate<Values: AsyncSequence & Sendable>(
        erasing sequence: Values,
        into emitter: FlowEmitter<Element, Failure>,
        isolation: isolated (any Actor)?
    ) async where Values.Element == Element, Failure == any Error {
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
}
