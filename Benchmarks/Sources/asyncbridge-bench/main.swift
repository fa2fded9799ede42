// asyncbridge-bench: each AsyncBridge operation timed side by side with its peer, in one process.
//
//   swift run -c release --package-path Benchmarks asyncbridge-bench [--json PATH] [--filter ID]
//
//   --json PATH   also write the results as a JSON array to PATH
//   --filter ID   run only the case with this id (see Cases.swift)
//   --profile ours|peer [--iterations N]
//                 run that side of the selected cases N times (default 10000), untimed, for
//                 callgrind (see README.md)
//
// The entry point is synchronous on purpose: the benchmarks run in a detached task, inside
// nonisolated async functions, while the main thread waits on a semaphore. Awaiting from
// top-level (main-actor) code would add actor hops to every operation, and an async `main`
// makes valgrind's callgrind crash.

import Dispatch

let options = Options.parse(Array(CommandLine.arguments.dropFirst()))
let finished = DispatchSemaphore(value: 0)
Task.detached {
    await runBenchmarks(options)
    finished.signal()
}
finished.wait()
