extension Flow {
    /// The values of each flow in turn: the next is subscribed when the previous has finished.
    ///
    /// A failure fails the result, and the flows after it are never subscribed. Finishes when
    /// the last one has (at once for no flows). Flows that finish during their subscription
    /// (`.just`, `.sequence`) follow one another without deepening the stack, however many
    /// there are (it is ``concatMap(_:)`` over the list).
    ///
    /// RxSwift: `Observable.concat`; Combine has none (chain `append(_:)`).
    ///
    /// ```swift
    /// let page = Flow.concat([cached, fetched, Flow.just(.endOfList)])
    /// ```
    @inlinable
    public static func concat(_ flows: [Flow]) -> Flow {
        Flow<Flow, Failure>.sequence(flows).concat()
    }

    /// ``concat(_:)-([Flow<Element,Failure>])`` with the flows listed.
    ///
    /// RxSwift: `Observable.concat(_:...)`; Combine has none.
    ///
    /// ```swift
    /// let intro = Flow.concat(greeting, instructions, .just("Ready?"))
    /// ```
    @inlinable
    public static func concat(_ flows: Flow...) -> Flow {
        concat(flows)
    }

    /// This flow's values, then, once it has finished, `other`'s. A failure of this flow fails
    /// the result, and `other` is never subscribed.
    ///
    /// RxSwift: `concat(_:)`; Combine: `append(_:)` (a publisher).
    ///
    /// ```swift
    /// let history = stored.append(live)
    /// ```
    @inlinable @_disfavoredOverload  // `.empty` names a value and `Flow.empty` alike: the value wins
    public func append(_ other: Flow) -> Flow {
        .concat([self, other])
    }

    /// This flow's values, then `values` once it has finished.
    ///
    /// `flow.append(.empty)` picks this form when `Element` has a case or static member
    /// called `empty` (a value beats a flow, as for ``prepend(_:)-(Element...)``); write
    /// `flow.append(Flow.empty)` for the flow.
    ///
    /// RxSwift: `concat(Observable.from(_:))`; Combine: `append(_:)` (values).
    ///
    /// ```swift
    /// let withFooter = rows.append(.footer)
    /// ```
    @inlinable
    public func append(_ values: Element...) -> Flow {
        append(.sequence(values))
    }

    /// `other`'s values first, then, once it has finished, this flow's. A failure of `other`
    /// fails the result, and this flow is never subscribed.
    ///
    /// ``prepend(_:)-(Element...)`` takes values; a flow that is also an `Element`'s member
    /// (`.empty` for an `Element` with such a case) is taken as a value: write `Flow.empty`.
    ///
    /// RxSwift: `Observable.concat([other, self])` (its `startWith` takes only values);
    /// Combine: `prepend(_:)` (a publisher).
    ///
    /// ```swift
    /// let feed = liveUpdates.prepend(cachedItems)
    /// ```
    @inlinable @_disfavoredOverload  // `.empty` names a value and `Flow.empty` alike: the value wins
    public func prepend(_ other: Flow) -> Flow {
        .concat([other, self])
    }
}
