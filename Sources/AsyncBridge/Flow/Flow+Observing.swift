#if canImport(Observation)
import Dispatch
import Observation

@available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, *)
extension Flow where Failure == Never {
    /// What `read` returns from `@Observable` models changed from any thread: the current value
    /// at once, then the value after each change of anything `read` read.
    ///
    /// ```swift
    /// let token = Flow.observing { cart.total }.subscribe { print("total", $0) }
    /// ```
    ///
    /// RxSwift: a `BehaviorRelay`'s `asObservable()`; Combine: a `@Published` property's
    /// publisher; Swift: `Observations` (macOS 26, iOS 26).
    ///
    /// After a change the flow reads again on a global queue; changes made before that read
    /// come as one value. No change is lost for a model whose setter and getter exclude each
    /// other (a lock around the whole mutation). Each subscription holds `read` until it ends;
    /// the flow never finishes. A main-actor model: ``MainActorFlow/observing(_:)``.
    @inlinable
    public static func observing(_ read: @escaping @Sendable () -> Element) -> Flow {
        Flow.create { emitter in
            let tracker = ObservationTracker(
                read: read,
                emitter: emitter,
                registersTwice: true,
                schedule: { DispatchQueue.global().async(execute: $0) }
            )
            tracker.track()
            emitter.onCancel { tracker.stop() }
        }
    }
}

@available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, *)
extension MainActorFlow where Failure == Never {
    /// What `read` returns from main-actor `@Observable` models: the current value, then the
    /// value after each change of anything `read` read, read and delivered on the main actor.
    ///
    /// ```swift
    /// MainActorFlow.observing { form.query }.subscribe(with: self) { viewModel, query in viewModel.query = query }.store(in: bag)
    /// ```
    ///
    /// RxSwift: a `BehaviorRelay`'s `asDriver()`; Combine: `$query.receive(on: DispatchQueue.main)`;
    /// Swift: `Observations` iterated on the main actor (macOS 26, iOS 26).
    ///
    /// Subscribed on the main actor, the current value arrives inside `subscribe`. After a change
    /// the flow reads again in a main-queue block, so the changes of one stretch of main-actor
    /// code come as one value. Each subscription holds `read` until it ends; the flow never
    /// finishes.
    @inlinable
    public static func observing(_ read: @escaping @MainActor @Sendable () -> Element) -> MainActorFlow {
        let upstream = Flow<Element, Never>.create { emitter in
            let tracker = ObservationTracker(
                read: { onMainActor("MainActorFlow.observing") { read() } },
                emitter: emitter,
                registersTwice: false,
                schedule: { DispatchQueue.main.async(execute: $0) }
            )
            if MainQueue.isCurrent {
                tracker.track()
            } else {
                DispatchQueue.main.async { tracker.track() }
            }
            emitter.onCancel { tracker.stop() }
        }
        return MainActorFlow(hopping: upstream, deliversInlineOnMain: true)
    }
}

/// One subscription's tracking of `read`: reads it under `withObservationTracking`, sends the
/// value, and at a change schedules the next read; one read runs at a time, and a change that
/// comes during a read makes it read once more.
@available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, *)
@usableFromInline
final class ObservationTracker<Element: Sendable>: Sendable {
    @usableFromInline
    struct State: Sendable {
        /// Let go of when the subscription ends.
        @usableFromInline var read: (@Sendable () -> Element)?
        /// Which read the registrations in place belong to: a change reported by an older one
        /// is already in a later value.
        @usableFromInline var generation: UInt64 = 0
        @usableFromInline var phase = Phase.reading

        @inlinable
        init(read: @escaping @Sendable () -> Element) {
            self.read = read
        }
    }

    @usableFromInline
    enum Phase: Sendable {
        case idle
        /// A read is scheduled or running.
        case reading
        /// A change came while a read ran: it reads again when done.
        case readingAgain
    }

    @usableFromInline let state: Lock<State>
    @usableFromInline let emitter: FlowEmitter<Element, Never>
    /// Whether each read is registered twice (models changed from other threads).
    @usableFromInline let registersTwice: Bool
    @usableFromInline let schedule: @Sendable (@escaping @Sendable () -> Void) -> Void

    @inlinable
    init(
        read: @escaping @Sendable () -> Element,
        emitter: FlowEmitter<Element, Never>,
        registersTwice: Bool,
        schedule: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void
    ) {
        self.state = .make(State(read: read))
        self.emitter = emitter
        self.registersTwice = registersTwice
        self.schedule = schedule
    }

    /// Reads and sends until no change came during the read. Runs where reads belong: any
    /// thread, or the main queue for a main-actor model.
    @inlinable
    func track() {
        while true {
            let next = state.withLock { state -> (read: @Sendable () -> Element, generation: UInt64)? in
                guard let read = state.read else { return nil }
                state.generation &+= 1
                state.phase = .reading
                return (read, state.generation)
            }
            guard let next else { return }
            let generation = next.generation
            var value = withObservationTracking(next.read) { [weak self] in self?.changed(generation) }
            if registersTwice {
                value = withObservationTracking(next.read) { [weak self] in self?.changed(generation) }
            }
            emitter.send(value)
            if emitter.isCancelled {
                stop()
                return
            }
            let again = state.withLock { state -> Bool in
                if state.phase == .readingAgain, state.read != nil { return true }
                state.phase = .idle
                return false
            }
            if !again { return }
        }
    }

    /// A registration of read `generation` saw a change (in the mutating thread's `willSet`).
    @inlinable
    func changed(_ generation: UInt64) {
        let schedules = state.withLock { state -> Bool in
            guard state.read != nil, state.generation == generation else { return false }
            switch state.phase {
            case .idle:
                state.phase = .reading
                return true
            case .reading:
                state.phase = .readingAgain
                return false
            case .readingAgain:
                return false
            }
        }
        if schedules { schedule { self.track() } }
    }

    /// Ends the tracking and lets go of `read`, outside the lock.
    @inlinable
    func stop() {
        let read = state.withLock { state -> (@Sendable () -> Element)? in
            defer { state.read = nil }
            return state.read
        }
        _ = read
    }
}
#endif
