extension Flow {
    /// Each value of this flow paired with the latest value of `other`; values that come
    /// before `other` has sent anything are dropped.
    ///
    /// Finishes when this flow finishes (`other` finishing changes nothing); fails when either
    /// fails.
    ///
    /// RxSwift: `withLatestFrom(_:)` (which keeps only the other value; map the pair for that).
    ///
    /// ```swift
    /// let submissions = submitTaps.withLatestFrom(form).map { $1 }
    /// ```
    @inlinable
    public func withLatestFrom<Other>(_ other: Flow<Other, Failure>) -> Flow<(Element, Other), Failure> {
        let trigger = self
        return Flow<(Element, Other), Failure> { subscriber in
            let latest = SerialState<Other?>(nil)
            let fanIn = FanIn<EitherEvent<Element, Other, Failure>, (Element, Other), Failure>(
                downstream: subscriber, sourceCount: 2
            ) { fanIn, event in
                switch event {
                case .first(.value(let value)): if let other = latest.value { fanIn.send((value, other)) }
                case .second(.value(let value)): latest.value = value
                case .first(.failure(let error)), .second(.failure(let error)): fanIn.end(.failure(error))
                case .first(.finished): fanIn.end(.finished)
                case .second(.finished): break
                }
            }
            other.feed(fanIn, through: fanIn.sources[1]) { .second($0) }
            trigger.feed(fanIn, through: fanIn.sources[0]) { .first($0) }
        }
    }
}
