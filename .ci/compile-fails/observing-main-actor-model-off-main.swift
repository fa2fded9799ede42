// A main-actor model read by `Flow.observing`, whose reads run on any thread (a global queue
// after each change): a data race, so it must not compile. Such a model is observed with
// `MainActorFlow.observing`, which reads on the main actor.
// expected-error: main actor-isolated property 'query' can not be referenced from a Sendable closure
import AsyncBridge
import Observation

@MainActor @Observable
final class SearchForm {
    var query = ""
}

@MainActor
func observe(_ form: SearchForm) {
    _ = Flow.observing { form.query }
}
