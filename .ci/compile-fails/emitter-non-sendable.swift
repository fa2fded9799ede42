// An emitter hands a non-Sendable instance to a subscriber, which may run on another thread
// (the emitter may be called from any thread), while the emitting side keeps mutating it: must
// not compile.
// expected-error: type 'Counter' does not conform to the 'Sendable' protocol
import AsyncBridge

final class Counter {
    var value = 0
}

let counters = Flow<Counter, Never>.create { emitter in
    let counter = Counter()
    emitter.send(counter)
    counter.value += 1
}
