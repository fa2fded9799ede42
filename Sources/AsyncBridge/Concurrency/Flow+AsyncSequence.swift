extension Flow where Element: Sendable {
    /// The values of an async sequence, iterated anew for each subscription, then finished;
    /// the failure is the sequence's own (`Never` for `AsyncStream`, the error type of a
    /// sequence that throws a typed one, `any Error` for `AsyncThrowingStream`).
    ///
    /// ```swift
    /// let onMain = Flow(locationUpdates, on: MainActor.shared)   // iterated on the main actor
    /// ```
    ///
    /// RxSwift: `asyncSequence.asObservable()`; Combine: none.
    ///
    /// The sequence is iterated in a new task, at `priority`, isolated to `actor` (`nil`: the
    /// global executor); the next value is pulled once the handler has returned. Cancelling the
    /// subscription cancels that task, delivers nothing more and releases the handlers at once,
    /// even if the sequence ignores cancellation. A one-shot sequence (`AsyncStream`) can be
    /// iterated by one subscription only.
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
            emitter.onCancel { task.cancel() }
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
            emitter.onCancel { task.cancel() }
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
