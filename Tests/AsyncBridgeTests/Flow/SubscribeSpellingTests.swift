import Testing
import AsyncBridge
import AsyncBridgeTesting

/// Every documented way of subscribing compiles and means what it says: a lone trailing
/// closure receives events whatever its body, and the value handlers are reached only by
/// their labels. The spellings that must not compile (a trailing closure written for values,
/// `subscribe(onValue:)` alone) are in `.ci/compile-fails/`. An unused token is a compiler
/// warning, which `swift build -Xswiftc -warnings-as-errors` turns into an error: every
/// subscription here is stored or discarded with `_ =`.
@Suite("Subscribe spellings", .timeLimit(.minutes(1)))
struct SubscribeSpellingTests {
    @Test func aLoneTrailingClosureReceivesEventsWhateverItsBody() {
        let printed = Box<[String]>([])
        let described = Box<[String]>([])
        let bag = CancellationBag()
        // `$0` used as anything (interpolated): events.
        Flow<Int, Never>.sequence([1, 2]).subscribe { printed.value.append("\($0)") }.store(in: bag)
        // A body that switches over the event: events, as the name says.
        Flow<Int, TestError>.sequence([1]).subscribe { event in
            switch event {
            case .value(let value): described.value.append("value \(value)")
            case .finished: described.value.append("finished")
            case .failure(let error): described.value.append("failure \(error.code)")
            }
        }.store(in: bag)
        #expect(printed.value == ["\(FlowEvent<Int, Never>.value(1))", "\(FlowEvent<Int, Never>.value(2))", "\(FlowEvent<Int, Never>.finished)"])
        #expect(described.value == ["value 1", "finished"])
    }

    @Test func bothHandlersByLabel() {
        let values = Box<[Int]>([])
        let completions = Box<[FlowCompletion<TestError>]>([])
        let bag = CancellationBag()
        Flow<Int, TestError>.sequence([1, 2])
            .subscribe(onValue: { values.value.append($0 + 1) }, onCompletion: { completions.value.append($0) })
            .store(in: bag)
        // The completion handler as a trailing closure, after the labelled value handler.
        Flow<Int, TestError>.fail(TestError(code: 7)).subscribe(onValue: { values.value.append($0) }) {
            completions.value.append($0)
        }.store(in: bag)
        #expect(values.value == [2, 3])
        #expect(completions.value == [.finished, .failure(TestError(code: 7))])
    }

    @Test func valuesOnlyIgnoreTheEndInWriting() {
        let values = Box<[Int]>([])
        let token = Flow<Int, Never>.sequence([1, 2]).subscribe(onValue: { values.value.append($0 * 10) }, onCompletion: { _ in })
        #expect(values.value == [10, 20])
        token.cancel()
    }

    @Test func onBehalfOfAnOwnerWithATrailingValueHandler() {
        final class Owner: Sendable {
            let seen = Box<[Int]>([])
        }
        let owner = Owner()
        let bag = CancellationBag()
        Flow<Int, Never>.sequence([1, 2]).subscribe(with: owner) { owner, value in owner.seen.value.append(value + 1) }
            .store(in: bag)
        #expect(owner.seen.value == [2, 3])
    }

    @Test func aTokenCanBeDiscardedOnlyInWriting() {
        let events = Box<[FlowEvent<Int, Never>]>([])
        _ = Flow<Int, Never>.just(1).subscribe { events.value.append($0) }
        #expect(events.value == [.value(1), .finished])
    }

    @Test func aStoredTokenIsCancelledWithItsBag() {
        let subject = LiveSubject<Int, Never>()
        let recorder = Box<[FlowEvent<Int, Never>]>([])
        do {
            let bag = CancellationBag()
            subject.flow.subscribe { recorder.value.append($0) }.store(in: bag)
            subject.send(1)
        }
        subject.send(2)
        #expect(recorder.value == [.value(1)])
    }
}
