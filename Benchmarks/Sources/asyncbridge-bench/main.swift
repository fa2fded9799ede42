// asyncbridge-bench: each AsyncBridge operation timed side by side with its peer, in one process.
//
//   swift run -c release --package-path Benchmarks asyncbridge-bench [--json PATH] [--filter ID]
//
//   --json PATH   also write the results as a JSON array to PATH
//   --filter ID   run only the case with this id (see Cases.swift)
//   --profile ours|peer [--iterations N]
//                 run that side of the selected cases N times (default 10000), untimed, for
//                 callgrind (see README.md)
//   --memory-side NAME [--iterations N]
//                 the child process of a memory case (MemoryCases.swift): buffers N values
//                 through that side and prints the peak resident bytes per buffered value
//
// The entry point is synchronous on purpose: the benchmarks run in a detached task, inside
// nonisolated async functions, and end the process with `exit` when done; meanwhile the main
// thread runs the main queue, to which the `receive-main*` cases deliver. Awaiting from
// top-level (main-actor) code would add actor hops to every operation, and an async `main`
// (like `dispatchMain()`, which ends the main thread with `pthread_exit`) makes valgrind crash,
// so the main queue is drained by `main_queue_serve` (the MainQueue target).

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import MainQueue

let options = Options.parse(Array(CommandLine.arguments.dropFirst()))
Task.detached {
    await runBenchmarks(options)
    exit(0)
}
main_queue_serve()
