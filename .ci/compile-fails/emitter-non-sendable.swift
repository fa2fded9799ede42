// An emitter hands a non-Sendable instance from the thread that made it to another one, which
// keeps mutating it: must not compile.
// expected-error: type 'Counter' does not conform to the 'Sendable' protocol
import AsyncBridge
import Dispatch

final class Counter {
    var value = 0
}

let counters = Flow<Counter, Never>.create { emitter in
    let counter = Counter()
    DispatchQueue.global().async { emitter.send(counter) }
    counter.value += 1
}
