// The package's lock (SPI, used by AsyncBridgeTesting) is Sendable only when its state is: a
// non-Sendable state read out of it could otherwise be shared between threads.
// expected-error: (capture of 'lock' with non-Sendable type|non-Sendable type 'SharedLock<Counter>')
@_spi(AsyncBridgeInternals) import AsyncBridge
import Dispatch

final class Counter {
    var value = 0
}

func race() {
    let lock = SharedLock(Counter())
    DispatchQueue.global().async { lock.withLock { $0.value += 1 } }
    lock.withLock { $0.value += 1 }
}
