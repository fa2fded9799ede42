import AsyncBridge
import Dispatch

/// `swift run asyncbridge-demo`: the seeds' scenarios through every bridge.
@main
struct Demo {
    static func main() async {
        do {
            try await OneShotBridges.run()
            try await FlowScenarios.run()
            try await CoordinationScenarios.run()
        } catch {
            print("demo failed: \(error)")
        }
    }
}

func section(_ title: String) {
    print("\n== \(title)")
}
