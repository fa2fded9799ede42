extension Flow {
    /// The first `count` values, then finished; the upstream is cancelled as soon as the last
    /// one has been delivered.
    ///
    /// The finish comes with the `count`-th value, as with RxSwift's `take(_:)`; Combine's
    /// `prefix(_:)` (in OpenCombine) waits for the value after those: see <doc:Streams>.
    ///
    /// RxSwift: `take(_:)`; Combine: `prefix(_:)`.
    ///
    /// ```swift
    /// let firstThree = numbers.prefix(3)
    /// ```
    ///
    /// - Parameter count: How many values to send; zero finishes at once, negative is a
    ///   precondition failure (README, "Durations and counts"), as for `Array.prefix(_:)`.
    @inlinable
    public func prefix(_ count: Int) -> Flow {
        checkCount(count, of: "prefix(_:)", atLeast: 0)
        let upstream = self
        return Flow { subscriber in
            guard count > 0 else { return subscriber.complete(.finished) }
            let upstreamSubscription = subscriber.subscription.child()
            let remaining = SerialState(count)
            let receive = subscriber.receive
            upstream.run(FlowSubscriber(
                subscription: upstreamSubscription,
                receive: { value in
                    guard remaining.value > 0 else { return .stop }
                    remaining.value -= 1
                    let demand = receive(value)
                    guard remaining.value == 0 else { return demand }
                    upstreamSubscription.cancel()
                    subscriber.complete(.finished)
                    return .stop
                },
                complete: { completion in
                    guard remaining.value > 0 else { return }
                    remaining.value = 0
                    subscriber.complete(completion)
                }
            ))
        }
    }

    /// The first value, then finished (or finished without a value).
    ///
    /// RxSwift: `take(1)` (its `first()` is a `Single`); Combine: `first()`.
    ///
    /// ```swift
    /// let current = settings.first()
    /// ```
    @inlinable
    public func first() -> Flow {
        prefix(1)
    }

    /// The first value that satisfies `predicate`, then finished.
    ///
    /// RxSwift: `filter(_:).take(1)`; Combine: `first(where:)`.
    ///
    /// ```swift
    /// let firstAdult = users.first { $0.age >= 18 }
    /// ```
    @inlinable
    public func first(where predicate: @escaping @Sendable (Element) -> Bool) -> Flow {
        filter(predicate).prefix(1)
    }

    /// Skips the first `count` values (one by default).
    ///
    /// RxSwift: `skip(_:)`; Combine: `dropFirst(_:)`.
    ///
    /// ```swift
    /// let changes = relay.flow.dropFirst()   // without the current value
    /// ```
    ///
    /// - Parameter count: How many values to skip; zero skips none, negative is a
    ///   precondition failure (README, "Durations and counts"), as for `Array.dropFirst(_:)`.
    @inlinable
    public func dropFirst(_ count: Int = 1) -> Flow {
        checkCount(count, of: "dropFirst(_:)", atLeast: 0)
        let upstream = self
        return Flow { subscriber in
            let toSkip = SerialState(count)
            let receive = subscriber.receive
            upstream.run(FlowSubscriber(
                subscription: subscriber.subscription,
                receive: { value in
                    guard toSkip.value == 0 else {
                        toSkip.value -= 1
                        return .more
                    }
                    return receive(value)
                },
                complete: subscriber.complete
            ))
        }
    }

    /// Drops a value when `isDuplicate(previous, value)` says it repeats the previous one.
    ///
    /// RxSwift: `distinctUntilChanged(_:)`; Combine: `removeDuplicates(by:)`.
    ///
    /// ```swift
    /// let moves = locations.removeDuplicates { $0.distance(to: $1) < 10 }
    /// ```
    @inlinable
    public func removeDuplicates(by isDuplicate: @escaping @Sendable (Element, Element) -> Bool) -> Flow {
        let upstream = self
        return Flow { subscriber in
            let previous = SerialState<Element?>(nil)
            let receive = subscriber.receive
            upstream.run(FlowSubscriber(
                subscription: subscriber.subscription,
                receive: { value in
                    if let last = previous.value, isDuplicate(last, value) { return .more }
                    previous.value = value
                    return receive(value)
                },
                complete: subscriber.complete
            ))
        }
    }
}

extension Flow where Element: Equatable & Sendable {
    /// Drops a value equal to the previous one.
    ///
    /// RxSwift: `distinctUntilChanged()`; Combine: `removeDuplicates()`.
    ///
    /// ```swift
    /// let changes = toggles.removeDuplicates()
    /// ```
    @inlinable
    public func removeDuplicates() -> Flow {
        removeDuplicates { $0 == $1 }
    }
}
