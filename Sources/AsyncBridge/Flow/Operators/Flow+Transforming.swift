extension Flow {
    /// Transforms each value.
    ///
    /// RxSwift: `map`; Combine: `map`.
    ///
    /// ```swift
    /// let names = users.map { $0.name }
    /// ```
    @inlinable
    public func map<NewElement>(_ transform: @escaping @Sendable (Element) -> NewElement) -> Flow<NewElement, Failure> {
        let upstream = self
        return Flow<NewElement, Failure> { subscriber in
            let receive = subscriber.receive
            upstream.run(FlowSubscriber(
                subscription: subscriber.subscription,
                receive: { receive(transform($0)) },
                complete: subscriber.complete
            ))
        }
    }

    /// Transforms each value and drops the `nil`s.
    ///
    /// RxSwift: `compactMap`; Combine: `compactMap`.
    ///
    /// ```swift
    /// let ids = strings.compactMap { Int($0) }
    /// ```
    @inlinable
    public func compactMap<NewElement>(_ transform: @escaping @Sendable (Element) -> NewElement?) -> Flow<NewElement, Failure> {
        let upstream = self
        return Flow<NewElement, Failure> { subscriber in
            let receive = subscriber.receive
            upstream.run(FlowSubscriber(
                subscription: subscriber.subscription,
                receive: { value in transform(value).map(receive) ?? .more },
                complete: subscriber.complete
            ))
        }
    }

    /// Lets through the values that satisfy `isIncluded`.
    ///
    /// RxSwift: `filter`; Combine: `filter`.
    ///
    /// ```swift
    /// let adults = users.filter { $0.age >= 18 }
    /// ```
    @inlinable
    public func filter(_ isIncluded: @escaping @Sendable (Element) -> Bool) -> Flow {
        let upstream = self
        return Flow { subscriber in
            let receive = subscriber.receive
            upstream.run(FlowSubscriber(
                subscription: subscriber.subscription,
                receive: { value in isIncluded(value) ? receive(value) : .more },
                complete: subscriber.complete
            ))
        }
    }
}
