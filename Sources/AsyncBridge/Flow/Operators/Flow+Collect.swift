extension Flow {
    /// Sends the values in arrays of `count`: each array as soon as it is full, and the last,
    /// shorter one (if any value waits) when the flow finishes.
    ///
    /// Useful to process a stream in chunks: rows inserted in a database `count` at a time,
    /// uploads batched.
    ///
    /// ```swift
    /// let pages = Flow<Int, Never>.sequence(1...5).collect(2)   // [1, 2], [3, 4], [5], finished
    /// ```
    ///
    /// A failure passes at once and drops the values that wait in an unfinished array (as
    /// Combine's does). For arrays sent after a time as well, use
    /// ``collect(within:maxCount:tolerance:clock:)``.
    ///
    /// RxSwift: none by count alone (`buffer(timeSpan:count:scheduler:)` always has a time
    /// span); Combine: `collect(_:)`.
    ///
    /// - Parameter count: The number of values in each array but the last; at least 1 (less is
    ///   a precondition failure, README, "Durations and counts").
    @inlinable
    public func collect(_ count: Int) -> Flow<[Element], Failure> {
        checkCount(count, of: "collect(_:)", atLeast: 1)
        let upstream = self
        return Flow<[Element], Failure> { subscriber in
            let batch = SerialState<[Element]>([])
            let receive = subscriber.receive
            // A child: the subscriber's subscription stays active while the last array is
            // sent, so a cancellation from inside its handler keeps the finish from coming.
            upstream.run(FlowSubscriber(
                subscription: subscriber.subscription.child(),
                receive: { value in
                    batch.value.append(value)
                    guard batch.value.count == count else { return .more }
                    return receive(batch.take())
                },
                complete: { completion in
                    let last = batch.take()
                    switch completion {
                    case .finished: subscriber.finish(sending: last.isEmpty ? nil : last)
                    case .failure: subscriber.complete(completion)
                    }
                }
            ))
        }
    }
}

extension SerialState {
    /// The batch so far, leaving an empty one (`collect`).
    @inlinable
    func take<Element>() -> [Element] where Value == [Element] {
        defer { value = [] }
        return value
    }
}
