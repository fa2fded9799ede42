extension Flow {
    /// The values of all `flows`, as they come. Finishes when all have finished; fails, and
    /// cancels the others, as soon as one fails.
    ///
    /// RxSwift: `Observable.merge`; Combine: `Publishers.MergeMany`.
    ///
    /// ```swift
    /// let refreshes = Flow.merge([pullToRefresh, appBecameActive, timerTicks])
    /// ```
    @inlinable
    public static func merge(_ flows: [Flow]) -> Flow {
        Flow { subscriber in
            let remaining = SerialState(flows.count)
            let fanIn = FanIn<IndexedEvent<Element, Failure>, Element, Failure>(
                downstream: subscriber, sourceCount: flows.count
            ) { fanIn, tagged in
                switch tagged.event {
                case .value(let value): fanIn.send(value)
                case .failure(let error): fanIn.end(.failure(error))
                case .finished:
                    remaining.value -= 1
                    if remaining.value == 0 { fanIn.end(.finished) }
                }
            }
            guard !flows.isEmpty else { return fanIn.end(.finished) }
            for (index, flow) in flows.enumerated() {
                flow.feed(fanIn, through: fanIn.sources[index]) { (index, $0) }
            }
        }
    }

    /// The values of `first`, `second` and `others`, as they come: ``merge(_:)`` without the
    /// array.
    ///
    /// RxSwift: `Observable.merge(_:_:)`; Combine: `Publishers.Merge`, `Merge3`…`Merge8`.
    ///
    /// ```swift
    /// let refreshes = Flow.merge(pullToRefresh, appBecameActive, timerTicks)
    /// ```
    @inlinable
    public static func merge(_ first: Flow, _ second: Flow, _ others: Flow...) -> Flow {
        .merge([first, second] + others)
    }

    /// This flow's values and those of `others`, as they come.
    ///
    /// RxSwift: `merge(with:)`; Combine: `merge(with:)`, `merge(with:_:)`…
    ///
    /// ```swift
    /// let taps = saveButton.merge(with: keyboardShortcut, menuItem)
    /// ```
    @inlinable
    public func merge(with other: Flow, _ others: Flow...) -> Flow {
        .merge([self, other] + others)
    }
}
