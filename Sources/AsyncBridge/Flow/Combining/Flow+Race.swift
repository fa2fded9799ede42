extension Flow {
    /// The flow that sends first, value or completion: it wins, every other is cancelled at
    /// once, and the result is the winner's events from then on.
    ///
    /// Events that reach the race at once from several threads are ordered: one wins, and
    /// nothing a loser sent reaches downstream. The flows are subscribed in order; one that
    /// sends during its subscription wins before the rest are subscribed at all. A race of no
    /// flows finishes at once (RxSwift's `Observable.amb([])` never ends).
    ///
    /// RxSwift: `Observable.amb`; Combine has none.
    ///
    /// ```swift
    /// let answer = Flow.race([primaryServer.fetch(id), mirror.fetch(id)])
    /// ```
    @inlinable
    public static func race(_ flows: [Flow]) -> Flow {
        Flow { subscriber in
            let winner = SerialState<Int?>(nil)
            let fanIn = FanIn<IndexedEvent<Element, Failure>, Element, Failure>(
                downstream: subscriber, sourceCount: flows.count
            ) { fanIn, tagged in
                let index = tagged.index
                if winner.value == nil {
                    winner.value = index
                    for (other, source) in fanIn.sources.enumerated() where other != index { source.cancel() }
                }
                guard winner.value == index else { return }
                switch tagged.event {
                case .value(let value): fanIn.send(value)
                case .finished: fanIn.end(.finished)
                case .failure(let error): fanIn.end(.failure(error))
                }
            }
            guard !flows.isEmpty else { return fanIn.end(.finished) }
            for (index, flow) in flows.enumerated() where !fanIn.sources[index].isCancelled {
                flow.feed(fanIn, through: fanIn.sources[index]) { (index, $0) }
            }
        }
    }

    /// This flow or `other`, whichever sends first (see ``race(_:)``).
    ///
    /// RxSwift: `amb(_:)`; Combine has none.
    ///
    /// ```swift
    /// let reply = request.race(with: timeoutMessage)
    /// ```
    @inlinable
    public func race(with other: Flow) -> Flow {
        .race([self, other])
    }
}
