@_spi(AsyncBridgeInternals) import AsyncBridge
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Memory cases: what a buffer costs per value it holds, in bytes, not time.
///
/// Each side runs in a process of its own (the benchmark runs itself with `--memory-side`), so
/// that neither side inherits the other's freed heap: the process warms the side up on a few
/// values, reads its peak resident size, buffers `count` values that nobody consumes yet,
/// reads the peak again, then consumes them all and checks their sum. The figure is the
/// growth of the peak divided by `count`: what the buffer's slots, its growth (old and new
/// storage at once while it doubles) and anything kept per value cost in memory the process
/// really touched.
let memoryCases: [MemoryCase] = [
    MemoryCase(id: "buffer-memory-1m", ours: "flow.values (unbounded)", peer: "AsyncStream (unbounded)", count: 1_000_000),
    MemoryCase(id: "buffer-memory-1m", ours: "BroadcastChannel (unbounded)", peer: "AsyncStream (unbounded)", count: 1_000_000),
]

struct MemoryCase: Sendable {
    let id: String
    /// Names of ``memorySides``.
    let ours: String
    let peer: String
    let count: Int
}

/// Buffers `count` values without consuming them, calls `whileBuffered` once they are all
/// buffered, then consumes them; returns their sum.
typealias MemorySide = @Sendable (_ count: Int, _ whileBuffered: () -> Void) async -> Int

let memorySides: [String: MemorySide] = [
    "flow.values (unbounded)": flowValuesBuffering,
    "BroadcastChannel (unbounded)": channelBuffering,
    "AsyncStream (unbounded)": asyncStreamBuffering,
]

/// A `Flow.create` emitter sends `count` values into an iteration of `flow.values` that has
/// started (its iterator subscribed) and takes nothing until all are sent.
func flowValuesBuffering(_ count: Int, _ whileBuffered: () -> Void) async -> Int {
    let emitter = SharedLock<FlowEmitter<Int, Never>?>(nil)
    let flow = Flow<Int, Never>.create { sink in emitter.withLock { $0 = sink } }
    var iterator = flow.values.makeAsyncIterator()
    let sink = emitter.withLock { $0 }!
    for value in 0..<count { sink.send(value) }
    whileBuffered()
    sink.finish()
    var sum = 0
    while let value = await iterator.next() { sum &+= value }
    return sum
}

/// `count` sends into a `BroadcastChannel` with one consumer that has started and takes
/// nothing until all are sent.
func channelBuffering(_ count: Int, _ whileBuffered: () -> Void) async -> Int {
    let channel = BroadcastChannel<Int, Never>()
    var iterator = channel.makeAsyncIterator()
    for value in 0..<count { channel.send(value) }
    whileBuffered()
    channel.finish()
    var sum = 0
    while let value = await iterator.next() { sum &+= value }
    return sum
}

/// `count` yields into an unbounded `AsyncStream`, consumed once all are sent.
func asyncStreamBuffering(_ count: Int, _ whileBuffered: () -> Void) async -> Int {
    let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
    for value in 0..<count { continuation.yield(value) }
    whileBuffered()
    continuation.finish()
    var sum = 0
    for await value in stream { sum &+= value }
    return sum
}

// MARK: Measuring

/// The peak resident size of this process so far, in bytes.
///
/// On Linux this is `VmHWM` of `/proc/self/status`, the high-water mark of this process's own
/// address space. Not `getrusage`'s `ru_maxrss`: Linux carries that over an `exec` from the
/// parent, so a child started by a parent larger than the child's peak (the benchmark after
/// its other cases ran) would read the parent's size before and after, and measure nothing.
func peakResidentBytes() -> Int {
    #if canImport(Glibc)
    guard let file = fopen("/proc/self/status", "r") else { fatalError("cannot read /proc/self/status") }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, Int32(line.count), file) != nil {
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if text.hasPrefix("VmHWM:"), let kilobytes = Int(text.dropFirst(6).filter(\.isNumber)) {
            return kilobytes * 1024
        }
    }
    fatalError("no VmHWM in /proc/self/status")
    #else
    var usage = rusage()
    getrusage(RUSAGE_SELF, &usage)
    return usage.ru_maxrss  // bytes on Darwin
    #endif
}

/// The child process's work (`--memory-side NAME --iterations COUNT`): prints the bytes per
/// buffered value of that side, or fails if the values did not all come back.
func runMemorySide(_ name: String, count: Int) async -> Never {
    guard let side = memorySides[name] else { usage() }
    _ = await side(1_000) {}  // loads and warms up the code, the locks and the allocator
    let before = peakResidentBytes()
    var after = before
    let sum = await side(count) { after = peakResidentBytes() }
    guard sum == count * (count - 1) / 2 else {
        printError("memory side \(name): the values did not all come back")
        exit(1)
    }
    print(fixed(Double(after - before) / Double(count), 2))
    exit(0)
}

/// Runs `side` in a child process (this executable, `--memory-side`) and returns the bytes
/// per buffered value it printed; `nil` where it failed, or off Linux.
func bytesPerValue(_ side: String, count: Int) -> Double? {
    #if canImport(Glibc)
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { return nil }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
    posix_spawn_file_actions_addclose(&actions, fds[0])
    let arguments = [CommandLine.arguments[0], "--memory-side", side, "--iterations", String(count)]
    var argv = arguments.map { strdup($0) } + [nil]
    defer { for argument in argv { free(argument) } }
    var child: pid_t = 0
    let spawned = posix_spawn(&child, "/proc/self/exe", &actions, nil, &argv, environ)
    close(fds[1])
    defer { close(fds[0]) }
    guard spawned == 0 else { return nil }
    var output: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 256)
    while true {
        let received = chunk.withUnsafeMutableBytes { read(fds[0], $0.baseAddress, $0.count) }
        if received <= 0 { break }
        output += chunk[..<received]
    }
    var status: Int32 = 0
    waitpid(child, &status, 0)
    guard status == 0 else { return nil }
    return String(decoding: output, as: UTF8.self).split(separator: "\n").last.flatMap { Double(String($0)) }
    #else
    return nil
    #endif
}
