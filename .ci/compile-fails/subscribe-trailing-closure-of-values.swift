// A lone trailing closure given to `subscribe` receives events (`FlowEvent`), whatever its body.
// A body written for values must not compile. Before, `subscribe { print($0) }` meant events but
// this one silently meant `subscribe(onValue:)`, because `$0 + 1` only type-checks for a value:
// the meaning of the closure depended on its body.
// expected-error: cannot convert value of type 'FlowEvent<Int, Never>' to expected argument type 'Int'
import AsyncBridge

func show(_ flow: Flow<Int, Never>, in bag: CancellationBag) {
    flow.subscribe { print($0 + 1) }.store(in: bag)
}
