import Testing

/// Runs `body` with a tracked object that the code under test captures, then expects that
/// nothing retains it any more (contract 5).
///
/// ```swift
/// expectReleased("map after cancellation") { tracked in
///     FlowRecorder(source.flow.map { _ = tracked; return $0 }).cancel()
/// }
/// ```
func expectReleased(_ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: (Tracked) -> Void) {
    weak var captured: Tracked?
    do {
        let tracked = Tracked()
        captured = tracked
        body(tracked)
    }
    #expect(captured == nil, "\(what) keeps what it captured", sourceLocation: sourceLocation)
}
