extension Flow {
    /// The latest value of this flow each time `trigger` sends, if a new one came since the
    /// last sample: a value is never sent twice, and a trigger with nothing new sends nothing
    /// (RxSwift's `sample` without a `defaultValue`).
    ///
    /// - **This flow finishing.** With a value not sampled yet, the result waits for the next
    ///   trigger value, sends it, then finishes. With none, it finishes at once.
    /// - **Trigger finishing.** Samples one last time (a value not sampled yet is sent), then
    ///   finishes and cancels this flow: no sample can come any more.
    /// - **Failure.** Either flow failing fails the result and cancels the other.
    ///
    /// RxSwift's `sample` stays open where this one finishes at once: see <doc:Streams>.
    ///
    /// RxSwift: `sample(_:)`; Combine has none.
    ///
    /// ```swift
    /// let shown = positions.sample(displayLink)   // the latest position, once per frame
    /// ```
    @inlinable
    public func sample<Other>(_ trigger: Flow<Other, Failure>) -> Flow {
        fanIn(with: trigger, triggerFirst: false, state: (latest: Element?.none, finished: false)) { fanIn, state, event in
            switch event {
            case .first(.value(let value)): state.latest = value
            case .first(.finished):
                state.finished = true
                if state.latest == nil { fanIn.end(.finished) }
            case .first(.failure(let error)), .second(.failure(let error)): fanIn.end(.failure(error))
            case .second(.value):
                guard let latest = state.latest else { return }
                state.latest = nil
                if state.finished { fanIn.sendLast(latest) } else { fanIn.send(latest) }
            case .second(.finished):
                fanIn.sendLast(state.latest)
            }
        }
    }

    /// ``sample(_:)-(Flow<Other,Failure>)`` with a trigger that cannot fail.
    ///
    /// RxSwift: `sample(_:)`; Combine has none.
    ///
    /// ```swift
    /// let shown = positions.sample(ticks)   // ticks: Flow<Void, Never>
    /// ```
    @inlinable @_disfavoredOverload  // where `Failure` is `Never` both forms fit; the same-failure one is the choice
    public func sample<Other>(_ trigger: Flow<Other, Never>) -> Flow {
        sample(trigger.setFailureType(to: Failure.self))
    }
}

extension FanIn {
    /// From `handle`: sends `value` if there is one, then finishes, unless the subscriber
    /// wanted no more values.
    @inlinable
    func sendLast(_ value: Element?) {
        if let value, downstream.receive(value) == .stop { return end(nil) }
        end(.finished)
    }
}
