import AsyncBridge
import Dispatch

/// `swift run asyncbridge-demo`: seed 001's `UserManager` through every one-shot bridge.
@main
struct Demo {
    static func main() async {
        do {
            try await OneShotBridges.run()
        } catch {
            print("demo failed: \(error)")
        }
    }
}

func section(_ title: String) {
    print("\n== \(title)")
}
