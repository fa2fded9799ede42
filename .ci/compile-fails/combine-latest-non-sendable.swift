// A non-Sendable class instance sent through `combineLatest` (which queues values and delivers
// them on whichever thread completes a pair) and mutated on its sending thread: a data race,
// so it must not compile. Flow's `Element` is `Sendable`.
// expected-error: type 'Counter' does not conform to the 'Sendable' protocol
import AsyncBridge
import Dispatch

final class Counter {
    var value = 0
}

func race(counters: Flow<Counter, Never>, ticks: Flow<Int, Never>) {
    _ = counters.combineLatest(ticks).subscribe(onValue: { pair in print(pair.0.value) })
}
