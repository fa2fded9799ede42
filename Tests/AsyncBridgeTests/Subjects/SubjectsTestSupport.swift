@_spi(AsyncBridgeInternals) import AsyncBridge
import AsyncBridgeTesting

/// Counts how many calls of a handler are in progress at once: a subscriber's deliveries
/// overlap if `maxInside` ever exceeds 1.
final class DeliveryOverlapProbe: Sendable {
    private let state = SharedLock((inside: 0, maxInside: 0))

    /// Runs `body` as one delivery.
    func deliver(_ body: () -> Void) {
        state.withLock { state in
            state.inside += 1
            state.maxInside = max(state.maxInside, state.inside)
        }
        body()
        state.withLock { $0.inside -= 1 }
    }

    var maxInside: Int { state.withLock { $0.maxInside } }
}

/// A subscriber for the stress tests: records its values and checks that they never arrive
/// two at a time.
final class StressSubscriber: Sendable {
    let probe = DeliveryOverlapProbe()
    private let values = SharedLock<[Int]>([])
    private let token = Box<CancellationToken?>(nil)

    init(_ flow: Flow<Int, Never>) {
        let probe = probe
        let values = values
        token.value = flow.subscribe(onValue: { value in
            probe.deliver { values.withLock { $0.append(value) } }
        }, onCompletion: { _ in })
    }

    /// The values received, in order.
    var received: [Int] { values.withLock { $0 } }

    func cancel() { token.value?.cancel() }
}

/// The three subject kinds, behind one shape, for the tests of their shared machinery.
enum SubjectKind: String, CaseIterable, Sendable {
    case publish, behavior, replay

    /// What a new subscriber gets first from a fresh subject: a behavior subject's initial value.
    static let initialValue = -1

    func make() -> (flow: Flow<Int, Never>, send: @Sendable (Int) -> Void, finish: @Sendable () -> Void) {
        switch self {
        case .publish:
            let subject = LiveSubject<Int, Never>()
            return (subject.flow, subject.send, subject.finish)
        case .behavior:
            let subject = LatestValueSubject<Int, Never>(value: Self.initialValue)
            return (subject.flow, subject.send, subject.finish)
        case .replay:
            let subject = ReplayingSubject<Int, Never>(bufferSize: 16)
            return (subject.flow, subject.send, subject.finish)
        }
    }
}

/// A switch as RxCocoa sees it: a user flipping it is an event (`userChanges`); assigning `isOn`
/// from code is not (as a `ControlProperty` does not emit for a programmatic change).
final class RelayTestSwitch: Sendable {
    private let state = Box(false)
    /// What the user did, and only that.
    let userChanges = LiveRelay<Bool>()

    init(isOn: Bool = false) {
        state.value = isOn
    }

    var isOn: Bool {
        get { state.value }
        set { state.value = newValue }  // no event: this is how the switch shows a result
    }

    /// The user flips the switch.
    func userFlips() {
        let isOn = !state.value
        state.value = isOn
        userChanges.accept(isOn)
    }
}

/// A settings API that answers each call at once with what it stored, and records the calls.
/// It answers only its first `maxAnswers` calls, so a test of a loop ends.
final class RelayTestSettingsAPI: Sendable {
    let calls = Box<[Bool]>([])
    private let maxAnswers: Int
    private let refuses: Bool

    /// - Parameter refuses: when true, the server keeps notifications off whatever it is asked.
    init(maxAnswers: Int = .max, refuses: Bool = false) {
        self.maxAnswers = maxAnswers
        self.refuses = refuses
    }

    func setNotifications(_ isOn: Bool, completion: @Sendable (Bool) -> Void) {
        calls.value.append(isOn)
        guard calls.value.count <= maxAnswers else { return }
        completion(refuses ? false : isOn)
    }
}

/// An owner whose lifetime the `subscribe(with:)` tests watch.
final class SubscribeWithOwner: Sendable {
    let name: String
    init(name: String = "owner") { self.name = name }
}

/// A value that reports its release, to prove a subject lets go of the values it no longer
/// buffers.
final class ReleasedValue: Sendable {
    let id: Int
    private let onRelease: @Sendable (Int) -> Void
    init(_ id: Int, onRelease: @escaping @Sendable (Int) -> Void) {
        self.id = id
        self.onRelease = onRelease
    }
    deinit { onRelease(id) }
}
