/// The machinery of the operators that combine several flows (`merge`, `combineLatest`,
/// `zip`, `withLatestFrom`, `sample`…): a ``SerialOperator`` without a timer, so the
/// operator's `handle` sees every source's events one at a time and may keep plain state.
@usableFromInline
typealias FanIn<Event: Sendable, Element: Sendable, Failure: Error> = SerialOperator<Event, Element, Failure, NoTimer>
