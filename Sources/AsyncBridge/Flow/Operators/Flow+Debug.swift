extension Flow {
    /// Writes a line for every subscription, value, completion and cancellation, prefixed with
    /// `label: ` (nothing for an empty label), to `output` (`print` by default), and passes the
    /// events on unchanged.
    ///
    /// ```swift
    /// let results = query.debug("search").flatMapLatest { api.search($0) }
    /// // search: subscribed
    /// // search: value(swift)
    /// // search: cancelled
    /// ```
    ///
    /// RxSwift: `debug(_:trimOutput:)`; Combine: `print(_:to:)`.
    ///
    /// `cancelled` is written only when the subscriber cancels before the completion. `output`
    /// gets each line without a line break, on the thread of each event, never under a lock.
    /// The lines carry no time, so a test can compare them exactly.
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
