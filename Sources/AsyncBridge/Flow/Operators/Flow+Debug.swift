extension Flow {
    /// Writes a line for every subscription, value, completion and cancellation, prefixed with
    /// `label`, to `output` (standard output by default), and passes the events on unchanged.
    ///
    /// ```swift
    /// let results = query.debug("search").flatMapLatest { api.search($0) }
    /// // search: subscribed
    /// // search: value(swift)
    /// // search: cancelled
    /// ```
    ///
    /// The lines are `subscribed`, `value(…)`, `finished`, `failure(…)` and `cancelled` (only
    /// when the subscriber cancels before the completion), after `label: ` when a label is
    /// given; values and errors are written with `String(describing:)`. `output` is called on
    /// the thread of each event, never under a lock of the library; give it a closure that
    /// collects the lines to check them in a test, or forwards them to a logger:
    ///
    /// ```swift
    /// let lines = LiveRelay<String>()
    /// let traced = flow.debug("upload") { lines.accept($0) }
    /// ```
    ///
    /// RxSwift's `debug` also writes the time, the file and the line, and `isDisposed` at the
    /// end; Combine's `print` writes `receive value: (…)` and the demand. The lines here carry
    /// no time, so that a test can compare them exactly.
    ///
    /// RxSwift: `debug(_:trimOutput:)`; Combine: `print(_:to:)`.
    ///
    /// - Parameters:
    ///   - label: Written before every line, followed by `: ` (nothing when empty).
    ///   - output: Receives each line, without a line break; `print` by default.
    @inlinable
    public func debug(_ label: String = "", to output: @escaping @Sendable (String) -> Void = { print($0) }) -> Flow {
        let prefix = label.isEmpty ? "" : label + ": "
        return handleEvents(
            onSubscribe: { output(prefix + "subscribed") },
            onValue: { output(prefix + "value(\($0))") },
            onCompletion: { completion in
                switch completion {
                case .finished: output(prefix + "finished")
                case .failure(let error): output(prefix + "failure(\(error))")
                }
            },
            onCancel: { output(prefix + "cancelled") }
        )
    }
}
