/// An event from one of two sources.
@usableFromInline
enum EitherEvent<First: Sendable, Second: Sendable, Failure: Error>: Sendable {
    case first(FlowEvent<First, Failure>)
    case second(FlowEvent<Second, Failure>)
}

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

    /// The values of all `flows`, as they come. Finishes when all have finished; fails, and
    /// cancels the others, as soon as one fails (RxSwift and Combine agree).
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
            feed(flows, into: fanIn)
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

    /// The latest value of each flow, as a pair, every time either sends, once both have sent.
    ///
    /// Finishes when both have finished, or as soon as one finishes without having sent a
    /// value (no pair can ever come); fails as soon as either fails, cancelling the other.
    ///
    /// RxSwift and Combine finish later when a source ends without a value. RxSwift's
    /// `combineLatest` finishes only at the other source's next value or its finish, so never
    /// while that source stays silent; Combine's finishes only once both have finished
    /// (OpenCombine's tests pin this). We finish at once: a flow that can send nothing more
    /// says so. All three fail as soon as either source fails.
    ///
    /// RxSwift: `Observable.combineLatest`; Combine: `combineLatest`.
    ///
    /// ```swift
    /// let canSubmit = email.combineLatest(password).map { !$0.isEmpty && $1.count >= 8 }
    /// ```
    @inlinable
    public func combineLatest<Other>(_ other: Flow<Other, Failure>) -> Flow<(Element, Other), Failure> {
        combiningLatest(other) { ($0, $1) }
    }

    /// ``combineLatest(_:)``, making its values with `combine`: the pair of every arity.
    @inlinable
    func combiningLatest<Other, Output>(
        _ other: Flow<Other, Failure>,
        _ combine: @escaping @Sendable (Element, Other) -> Output
    ) -> Flow<Output, Failure> {
        let first = self
        return Flow<Output, Failure> { subscriber in
            let latest = SerialState<(Element?, Other?, finished: Int)>((nil, nil, 0))
            let fanIn = FanIn<EitherEvent<Element, Other, Failure>, Output, Failure>(
                downstream: subscriber, sourceCount: 2
            ) { fanIn, event in
                switch event {
                case .first(.value(let value)): latest.value.0 = value
                case .second(.value(let value)): latest.value.1 = value
                case .first(.failure(let error)), .second(.failure(let error)):
                    return fanIn.end(.failure(error))
                case .first(.finished), .second(.finished):
                    latest.value.finished += 1
                    let neverPaired: Bool
                    if case .first = event { neverPaired = latest.value.0 == nil } else { neverPaired = latest.value.1 == nil }
                    if latest.value.finished == 2 || neverPaired { fanIn.end(.finished) }
                    return
                }
                if let a = latest.value.0, let b = latest.value.1 { fanIn.send(combine(a, b)) }
            }
            first.feed(fanIn, through: fanIn.sources[0]) { .first($0) }
            other.feed(fanIn, through: fanIn.sources[1]) { .second($0) }
        }
    }

    /// Pairs the n-th value of this flow with the n-th value of `other`.
    ///
    /// Finishes as soon as one flow has finished and every value it sent has been paired (no
    /// further pair can come), cancelling the other; fails as soon as either fails.
    ///
    /// Combine's `zip` finishes the same way (as OpenCombine implements it). RxSwift's `zip`
    /// finishes only once both sources have finished, so it stays open, pairing nothing,
    /// while the longer one goes on. We follow Combine: a flow that can send nothing more
    /// says so. Both fail as soon as either source fails.
    ///
    /// RxSwift: `Observable.zip`; Combine: `zip`.
    ///
    /// ```swift
    /// let pairs = questions.zip(answers)
    /// ```
    @inlinable
    public func zip<Other>(_ other: Flow<Other, Failure>) -> Flow<(Element, Other), Failure> {
        zipping(other) { ($0, $1) }
    }

    /// ``zip(_:)``, making its values with `combine`: the pair of every arity.
    @inlinable
    func zipping<Other, Output>(
        _ other: Flow<Other, Failure>,
        _ combine: @escaping @Sendable (Element, Other) -> Output
    ) -> Flow<Output, Failure> {
        let first = self
        return Flow<Output, Failure> { subscriber in
            let buffers = SerialState<(first: [Element], second: [Other], firstDone: Bool, secondDone: Bool)>(([], [], false, false))
            let fanIn = FanIn<EitherEvent<Element, Other, Failure>, Output, Failure>(
                downstream: subscriber, sourceCount: 2
            ) { fanIn, event in
                switch event {
                case .first(.value(let value)): buffers.value.first.append(value)
                case .second(.value(let value)): buffers.value.second.append(value)
                case .first(.failure(let error)), .second(.failure(let error)): return fanIn.end(.failure(error))
                case .first(.finished): buffers.value.firstDone = true
                case .second(.finished): buffers.value.secondDone = true
                }
                while !buffers.value.first.isEmpty, !buffers.value.second.isEmpty {
                    fanIn.send(combine(buffers.value.first.removeFirst(), buffers.value.second.removeFirst()))
                }
                if (buffers.value.firstDone && buffers.value.first.isEmpty)
                    || (buffers.value.secondDone && buffers.value.second.isEmpty) {
                    fanIn.end(.finished)
                }
            }
            first.feed(fanIn, through: fanIn.sources[0]) { .first($0) }
            other.feed(fanIn, through: fanIn.sources[1]) { .second($0) }
        }
    }

    /// Each value of this flow paired with the latest value of `other`; values that come
    /// before `other` has sent anything are dropped.
    ///
    /// Finishes when this flow finishes (`other` finishing changes nothing); fails when either
    /// fails. RxSwift's behaviour; Combine has no such operator.
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
