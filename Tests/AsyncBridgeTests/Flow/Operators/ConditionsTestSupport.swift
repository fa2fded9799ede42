import AsyncBridge

/// Subscribes to a flow, records its events, and runs `reaction` inside the handler of each
/// one, so a test can send to a source from there (re-entrancy). Counts deliveries that
/// began while another was still in its handler, on this thread or another.
final class ReactingRecorder<Element: Sendable>: Sendable {
    private let recorded = Box<[FlowEvent<Element, TestError>]>([])
    private let inside = AtomicCounter()
    let overlaps = AtomicCounter()
    private let token = Box<CancellationToken?>(nil)

    init(_ flow: Flow<Element, TestError>, reaction: @escaping @Sendable (FlowEvent<Element, TestError>) -> Void) {
        let subscription = flow.subscribe { [recorded, inside, overlaps] event in
            if inside.value > 0 { overlaps.increment() }
            inside.increment()
            recorded.mutate { $0.append(event) }
            reaction(event)
            inside.decrement()
        }
        token.value = subscription
    }

    var events: [FlowEvent<Element, TestError>] { recorded.value }

    func cancel() { token.value?.cancel() }
}

/// A flow that counts its subscriptions, for tests that check a flow is never subscribed.
func counting<Element: Sendable>(_ flow: Flow<Element, TestError>, _ subscriptions: AtomicCounter) -> Flow<Element, TestError> {
    Flow.deferred {
        subscriptions.increment()
        return flow
    }
}
