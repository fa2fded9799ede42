// `tryMap`'s closure throws the flow's own failure, so the flow keeps its type. A closure that
// throws untyped errors on a flow with a typed failure must not compile: widening the failure to
// `any Error` is written out (`setFailureType(to: (any Error).self)`), never picked silently.
// expected-error: invalid conversion of thrown error type 'any Error' to 'APIError'
import AsyncBridge

enum APIError: Error {
    case offline
}

func decode(_ value: Int) throws -> String {
    String(value)
}

func names(_ ids: Flow<Int, APIError>) -> Flow<String, APIError> {
    ids.tryMap { try decode($0) }
}
