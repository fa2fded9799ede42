// `path-types PATH N`: runs PATH 20 times (warm-up), then N times, and exits. Run under callgrind
// at two N, `Benchmarks/path-types.py` lists the AsyncBridge types whose functions run once more
// per iteration (README, "Types on a path"). PATH is one of:
//   completion-to-await    one `withCompletion` call, its completion called 5 ms later on another thread
//   subject-to-main-actor  one `LiveSubject.send` through `map` and `receive(on: MainActor.shared)`
//                          to a main-actor handler
import AsyncBridge
import Foundation

let paths = ["completion-to-await", "subject-to-main-actor"]
let arguments = CommandLine.arguments
guard arguments.count == 3, paths.contains(arguments[1]), let n = Int(arguments[2]), n >= 0 else {
    print("usage: path-types \(paths.joined(separator: "|")) N")
    exit(2)
}
let path = arguments[1]
let warmUp = 20

// The paths run on the main actor (on Linux, DispatchQueue.main, drained by RunLoop.main.run()).
// Not `@main` with an async `main`: valgrind 3.19 crashes on that entry (it ends in dispatch_main()).
Task { @MainActor in
    switch path {
    case "completion-to-await":
        var sum = 0
        for i in 0..<(warmUp + n) { sum &+= await completionToAwaitOnce(i) }
        print("\(path) done, n=\(n), sum=\(sum)")
    default:
        let seen = await subjectToMainActor(iterations: warmUp + n)
        print("\(path) done, n=\(n), seen=\(seen)")
    }
    exit(0)
}
RunLoop.main.run()
