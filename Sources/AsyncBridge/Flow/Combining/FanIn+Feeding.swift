// How the operators over several flows that see whole events (merge, withLatestFrom, race,
// the conditions with a trigger) feed their `FanIn`: each source's events tagged with the
// source. combineLatest and zip tag only values (`CombiningCore.swift`).

/// An event from one of two sources.
@usableFromInline
enum EitherEvent<First: Sendable, Second: Sendable, Failure: Error>: Sendable {
    case first(FlowEvent<First, Failure>)
    case second(FlowEvent<Second, Failure>)
}

/// An event of one of several sources, tagged with the source's index.
@usableFromInline
typealias IndexedEvent<Element: Sendable, Failure: Error> = (index: Int, event: FlowEvent<Element, Failure>)

extension Flow {
    /// Forwards a flow's events into a fan-in, tagged by `tag`.
    @inlinable
    func feed<Event, Output>(
        _ fanIn: FanIn<Event, Output, Failure>,
        through subscription: FlowSubscription,
        _ tag: @escaping @Sendable (FlowEvent<Element, Failure>) -> Event
    ) {
        run(FlowSubscriber(
            subscription: subscription,
            receive: { fanIn.submit(tag(.value($0))) },
            complete: { _ = fanIn.submit(tag(FlowEvent($0))) }
        ))
    }
}
