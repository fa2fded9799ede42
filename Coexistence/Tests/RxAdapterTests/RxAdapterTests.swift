// Migration.md's RxSwift adapter (Sources/RxAdapter/RxSwift+AsyncBridge.swift) against the
// RxSwift stand-in, whose subscriptions run on the current-thread trampoline as RxSwift's do.
// A test whose source never stops runs on a thread of its own and fails after a while instead
// of hanging the run (the thread is then left spinning until the process exits).

import AsyncBridge
import Foundation
@testable import RxAdapter
@preconcurrency import RxSwift
import Testing

// MARK: - Flow → Observable

@Suite(.timeLimit(.minutes(1)))
struct FlowAsObservableTests {
    @Test func take1StopsAFiniteSynchronousFlowAfterOneValue() {
        let produced = Counter()
        let events = Events()
        let returned = returns {
            _ = Flow<Int, Never>.sequence(0..<1_000_000)
                .handleEvents(onValue: { _ in produced.increment() })
                .asObservable()
                .take(1)
                .subscribe(events.record)
        }
        #expect(returned)
        #expect(events.all == ["0", "completed"])
        #expect(produced.value == 1)
    }

    @Test func take1StopsAnEndlessSynchronousFlow() {
        let events = Events()
        let returned = returns {
            _ = Flow<Int, Never>.sequence(0...).asObservable().take(1).subscribe(events.record)
        }
        #expect(returned)
        #expect(events.all == ["0", "completed"])
    }

    @Test func valuesThenCompletionBeforeSubscribeReturns() {
        let events = Events()
        let returned = returns {
            _ = Flow<Int, Never>.sequence([1, 2, 3]).asObservable().subscribe(events.record)
            events.record("returned")
        }
        #expect(returned)
        #expect(events.all == ["1", "2", "3", "completed", "returned"])
    }

    @Test func failureBecomesError() {
        let events = Events()
        _ = Flow<Int, TestError>.fail(.boom).asObservable().subscribe(events.record)
        #expect(events.all == ["error: boom"])
    }

    @Test func disposingCancelsTheFlow() {
        let cancelled = Counter()
        let subject = LiveSubject<Int, Never>()
        let events = Events()
        let disposable = subject.flow
            .handleEvents(onCancel: { cancelled.increment() })
            .asObservable()
            .subscribe(events.record)
        subject.send(1)
        disposable.dispose()
        subject.send(2)
        #expect(events.all == ["1"])
        #expect(cancelled.value == 1)
    }

    @Test func disposingRunsTheCancelActionOfACreatedFlow() {
        let cancelled = Counter()
        let events = Events()
        let flow = Flow<Int, Never>.create { emitter in
            emitter.send(1)
            emitter.onCancel { cancelled.increment() }
        }
        let disposable = flow.asObservable().subscribe(events.record)
        #expect(cancelled.value == 0)
        disposable.dispose()
        #expect(events.all == ["1"])
        #expect(cancelled.value == 1)
    }

    /// Disposed inside another subscription, while the trampoline runs: the flow has not started
    /// yet, and never does.
    @Test func disposedBeforeTheTrampolineStartsItTheFlowNeverRuns() {
        let started = Counter()
        let events = Events()
        let flow = Flow<Int, Never>.sequence([1, 2]).handleEvents(onSubscribe: { started.increment() })
        let outer = Observable<Int>.create { observer in
            let inner = flow.asObservable().subscribe(observer)
            inner.dispose()
            return inner
        }
        _ = outer.subscribe(events.record)
        #expect(events.all == [])
        #expect(started.value == 0)
    }
}

// MARK: - Observable → Flow

@Suite(.timeLimit(.minutes(1)))
struct ObservableAsFlowTests {
    @Test func prefix1StopsRepeatElement() {
        let events = Events()
        let returned = returns {
            _ = Observable.repeatElement(1).asFlow().prefix(1).subscribe(events.record)
        }
        #expect(returned)
        #expect(events.all == ["1", "finished"])
    }

    @Test func prefix1StopsAFiniteSourceOnTheTrampolineAfterOneValue() {
        let pulled = Counter()
        let events = Events()
        let returned = returns {
            let numbers = (0..<1_000_000).lazy.map { number in
                pulled.increment()
                return number
            }
            _ = Observable.from(numbers).asFlow().prefix(1).subscribe(events.record)
        }
        #expect(returned)
        #expect(events.all == ["0", "finished"])
        #expect(pulled.value <= 2)   // the value sent, and the one at which `take(while:)` stops
    }

    @Test func cancellingInsideTheHandlerStopsAnEndlessSource() {
        let events = Events()
        let returned = returns {
            let bag = CancellationBag()
            _ = Observable.repeatElement(1).asFlow().subscribe(onStart: { $0.store(in: bag) }) { event in
                events.record(event)
                bag.cancelAll()
            }
        }
        #expect(returned)
        #expect(events.all == ["1"])
    }

    @Test func valuesThenFinish() {
        let events = Events()
        _ = Observable.of(1, 2, 3).asFlow().subscribe(events.record)
        #expect(events.all == ["1", "2", "3", "finished"])
    }

    @Test func errorBecomesFailure() {
        let events = Events()
        let observable = Observable<Int>.create { observer in
            observer.onNext(1)
            observer.onError(TestError.boom)
            return Disposables.create()
        }
        _ = observable.asFlow().subscribe(events.record)
        #expect(events.all == ["1", "failure: boom"])
    }

    @Test func cancellingDisposesTheSubscription() {
        let disposed = Counter()
        let events = Events()
        let observable = Observable<Int>.create { observer in
            observer.onNext(1)
            return Disposables.create { disposed.increment() }
        }
        let token = observable.asFlow().subscribe(events.record)
        #expect(disposed.value == 0)
        token.cancel()
        #expect(disposed.value == 1)
        #expect(events.all == ["1"])
    }
}

// MARK: - The stand-in behaves as RxSwift does

@Suite(.timeLimit(.minutes(1)))
struct RxStandInTests {
    /// A source that emits from the trampoline: `take(1)` disposes it after one value.
    @Test func take1StopsRepeatElement() {
        let events = Events()
        let returned = returns {
            _ = Observable.repeatElement(1).take(1).subscribe(events.record)
        }
        #expect(returned)
        #expect(events.all == ["1", "completed"])
    }

    /// A `create` closure that emits before returning its disposable: `take(1)` forwards one
    /// value but cannot dispose the closure's work, which runs to its end (the adapter's
    /// `asObservable()` must not be written this way).
    @Test func take1CannotStopACreateThatEmitsInsideSubscribe() {
        let sent = Counter()
        let events = Events()
        let observable = Observable<Int>.create { observer in
            for value in 0..<1_000 {
                sent.increment()
                observer.onNext(value)
            }
            observer.onCompleted()
            return Disposables.create()
        }
        _ = observable.take(1).subscribe(events.record)
        #expect(events.all == ["0", "completed"])
        #expect(sent.value == 1_000)
    }

    /// A disposable set after its holder was disposed is disposed at once.
    @Test func singleAssignmentDisposableDisposesWhatComesLate() {
        let disposed = Counter()
        let holder = SingleAssignmentDisposable()
        holder.dispose()
        holder.setDisposable(Disposables.create { disposed.increment() })
        #expect(disposed.value == 1)
    }
}

// MARK: - The snippet users paste is this file

@Test func migrationSnippetIsTheTestedAdapter() throws {
    let coexistence = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let adapter = try String(
        contentsOf: coexistence.appendingPathComponent("Sources/RxAdapter/RxSwift+AsyncBridge.swift"),
        encoding: .utf8
    )
    let migration = try String(
        contentsOf: coexistence.deletingLastPathComponent().appendingPathComponent("Migration.md"),
        encoding: .utf8
    )
    let lines = migration.components(separatedBy: "\n")
    let opening = try #require(
        lines.indices.first { lines[$0] == "```swift package=Coexistence" && lines[$0 + 1] == "// RxSwift+AsyncBridge.swift" },
        "Migration.md has no ```swift package=Coexistence block that starts with // RxSwift+AsyncBridge.swift"
    )
    let closing = try #require(lines[(opening + 1)...].firstIndex(of: "```"))
    let snippet = lines[(opening + 1)..<closing].joined(separator: "\n") + "\n"
    #expect(
        snippet == adapter,
        "Migration.md's RxSwift adapter and Coexistence/Sources/RxAdapter/RxSwift+AsyncBridge.swift differ: keep them the same text"
    )
}

// MARK: - Helpers

enum TestError: Error, CustomStringConvertible {
    case boom
    var description: String { "boom" }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func increment() {
        lock.lock()
        count += 1
        lock.unlock()
    }

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}

/// The events a subscriber saw, as text: "1", "completed", "error: boom" (Rx); "1", "finished",
/// "failure: boom" (flows).
final class Events: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [String] = []

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return events
    }

    func record(_ text: String) {
        lock.lock()
        events.append(text)
        lock.unlock()
    }

    func record<Element>(_ event: Event<Element>) {
        switch event {
        case .next(let element): record("\(element)")
        case .completed: record("completed")
        case .error(let error): record("error: \(error)")
        }
    }

    @Sendable func record<Element, Failure>(_ event: FlowEvent<Element, Failure>) {
        switch event {
        case .value(let value): record("\(value)")
        case .finished: record("finished")
        case .failure(let error): record("failure: \(error)")
        }
    }
}

/// Runs `body` on a new thread (where no trampoline runs) and waits for it to return: false if
/// it has not returned within `seconds`.
func returns(within seconds: Double = 20, _ body: @escaping @Sendable () -> Void) -> Bool {
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        body()
        done.signal()
    }
    thread.start()
    return done.wait(timeout: .now() + seconds) == .success
}
