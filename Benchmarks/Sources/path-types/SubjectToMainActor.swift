// Path "subject-to-main-actor": `LiveSubject` → `map` → `receive(on: MainActor.shared)` →
// `subscribe`, set up once; one iteration sends one value from the main actor and waits until the
// handler has seen it (the hop's block runs on DispatchQueue.main while this task is suspended).
import AsyncBridge

@MainActor
final class Waiter {
    var continuation: CheckedContinuation<Void, Never>?
    var seen = 0

    func handlerSawValue() {
        seen += 1
        if let c = continuation {
            continuation = nil
            c.resume()
        }
    }
}

/// Sends `iterations` values, one at a time; returns how many the handler saw.
@MainActor
func subjectToMainActor(iterations: Int) async -> Int {
    let waiter = Waiter()
    let subject = LiveSubject<Int, Never>()
    let token = subject.flow.map { $0 + 1 }.receive(on: MainActor.shared).subscribe { event in
        MainActor.assertIsolated()
        if case .value = event { waiter.handlerSawValue() }
    }
    for i in 0..<iterations {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            waiter.continuation = c
            subject.send(i)
        }
    }
    withExtendedLifetime(token) {}
    return waiter.seen
}
