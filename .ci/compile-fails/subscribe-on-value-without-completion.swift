// `subscribe(onValue:)` alone is gone: with a default completion handler, a lone trailing closure
// could mean it as well as the event handler. Both handlers are written (`onCompletion: { _ in }`
// to ignore the end), or `subscribe { event in }` is used. Compiled before.
// expected-error: missing argument for parameter 'onCompletion' in call
import AsyncBridge

func show(_ names: Flow<String, Never>, in bag: CancellationBag) {
    names.subscribe(onValue: { print($0) }).store(in: bag)
}
