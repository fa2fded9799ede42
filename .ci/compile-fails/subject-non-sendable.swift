// A subject delivers to subscribers on the sending thread while others send: a non-Sendable
// element must not compile.
// expected-error: type 'Counter' does not conform to the 'Sendable' protocol
import AsyncBridge

final class Counter {
    var value = 0
}

let counters = LiveSubject<Counter, Never>()
