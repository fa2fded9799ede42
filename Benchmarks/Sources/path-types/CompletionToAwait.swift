// Path "completion-to-await": one `withCompletion` call (the cancellable overload) whose
// completion block is called 5 ms later on another thread, so the call is always waiting by then.
import AsyncBridge
import Dispatch

@inline(never)
func completeLater(_ value: Int, _ completion: @escaping @Sendable (Result<Int, Never>) -> Void) {
    DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(5)) { completion(.success(value)) }
}

func completionToAwaitOnce(_ input: Int) async -> Int {
    do {
        return try await withCompletion { (completion: @escaping @Sendable (Result<Int, Never>) -> Void, onCancel) in
            completeLater(input, completion)
            onCancel {}
        }
    } catch {
        fatalError("completion-to-await failed: \(error)")  // never cancelled: not expected
    }
}
