// The same trap with a member of the value: `subscribe { $0.name }` reads a property of the
// value, so it only type-checked as `subscribe(onValue:)`, and compiled silently before. A lone
// trailing closure receives events now; the value is `.value(let user)`.
// expected-error: value of type 'FlowEvent<User, Never>' has no member 'name'
import AsyncBridge

struct User: Sendable {
    var name: String
}

func show(_ users: Flow<User, Never>, in bag: CancellationBag) {
    users.subscribe { print($0.name) }.store(in: bag)
}
