#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import MallocCounter

// MARK: Cases

/// Performs `iterations` operations of one side of a case.
typealias Body = @Sendable (_ iterations: Int) async throws -> Void

/// How a case compares ours with its peer.
enum Ratio: Sendable {
    /// The peer is the floor, the least a bridge can cost: ratio = ours / peer, at most `atMost`
    /// (`nil`: no target).
    case overFloor(atMost: Double?)
    /// The peer is a competitor: ratio = peer / ours (our speed-up), at least `atLeast`.
    case speedup(atLeast: Double?)
}

/// Whether mallocs per operation of ours are counted, and the most allowed.
enum Allocations: Sendable {
    case notCounted
    case counted
    case atMost(Double)
}

struct BenchmarkCase: Sendable {
    let id: String
    let peer: String
    let ratio: Ratio
    let allocations: Allocations
    let ours: Body
    let peerBody: Body
}

// MARK: Keeping the optimiser honest

nonisolated(unsafe) private var blackHoleTotal = 0

/// Hands back `value` through a call the optimiser cannot see into. Add a non-generic overload
/// per type: passing a closure through a generic function reabstracts it, which adds a thunk
/// (and, for completion blocks handed on, an allocation per call) to both sides of a case.
@inline(never) @_optimize(none)
func opaque(_ value: Int) -> Int { value }

/// Consumes `value` so that computing it cannot be optimised away.
@inline(never)
func blackHole(_ value: Int) { blackHoleTotal &+= value }

// MARK: Options

/// Which side of a case `--profile` runs.
enum Side: String, Sendable {
    case ours, peer
}

struct Options: Sendable {
    var jsonPath: String?
    var filter: String?
    /// `--profile SIDE` runs that side of the selected cases `iterations` times, untimed.
    var profile: Side?
    var iterations = 10_000
    /// `--memory-side NAME` (with `--iterations` values): the child process of a memory case.
    var memorySide: String?

    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            guard let value = rest.popFirst() else { usage() }
            switch argument {
            case "--json": options.jsonPath = value
            case "--filter": options.filter = value
            case "--profile":
                guard let side = Side(rawValue: value) else { usage() }
                options.profile = side
            case "--memory-side": options.memorySide = value
            case "--iterations":
                guard let count = Int(value), count >= 0 else { usage() }
                options.iterations = count
            default: usage()
            }
        }
        return options
    }
}

func usage() -> Never {
    let ids = (benchmarkCases.map(\.id) + memoryCases.map(\.id)).joined(separator: ", ")
    printError("usage: asyncbridge-bench [--json PATH] [--filter ID] [--profile ours|peer [--iterations N]] [--memory-side NAME --iterations N]\ncases: \(ids)")
    exit(2)
}

func printError(_ message: String) {
    var line = message + "\n"
    line.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
}

// MARK: Measuring

/// Timed runs per side of a case; the median is reported.
let runs = 7
/// Roughly how long one timed run lasts.
let runNanoseconds = 50_000_000.0

func elapsed(_ body: Body, _ iterations: Int) async throws -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try await body(iterations)
    return Double(DispatchTime.now().uptimeNanoseconds - start)
}

/// Warms `body` up and returns the iteration count that makes a run last about `runNanoseconds`.
func calibrate(_ body: Body) async throws -> Int {
    var iterations = 100
    while true {
        let time = try await elapsed(body, iterations)
        if time >= runNanoseconds / 5 {
            return max(1, Int(Double(iterations) * runNanoseconds / time))
        }
        iterations *= 4
    }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

/// Median ns per operation of each side; the runs of ours and the peer alternate.
func time(_ benchmark: BenchmarkCase) async throws -> (ours: Double, peer: Double) {
    let oursIterations = try await calibrate(benchmark.ours)
    let peerIterations = try await calibrate(benchmark.peerBody)
    var ours: [Double] = [], peer: [Double] = []
    for _ in 0..<runs {
        ours.append(try await elapsed(benchmark.ours, oursIterations) / Double(oursIterations))
        peer.append(try await elapsed(benchmark.peerBody, peerIterations) / Double(peerIterations))
    }
    return (median(ours), median(peer))
}

/// Mallocs per operation, on every thread, in a pass of its own.
func allocationsPerOperation(_ body: Body) async throws -> Double {
    let iterations = 10_000
    try await body(iterations)
    let before = malloc_counter_read()
    try await body(iterations)
    return Double(malloc_counter_read() - before) / Double(iterations)
}

final class Probe {
    let value: Int
    init(_ value: Int) { self.value = value }
}

nonisolated(unsafe) private var probeSink: Probe?

/// Checks that the counter sees Swift allocations: each class instance is one malloc.
func mallocCounterSanityCheck() -> Bool {
    let instances = 1_000
    let before = malloc_counter_read()
    for i in 0..<instances { probeSink = Probe(opaque(i)) }
    let counted = malloc_counter_read() - before
    probeSink = nil
    let ok = counted == UInt64(instances)
    print("malloc counter sanity check: \(instances) class instances -> \(counted) mallocs (expected \(instances)): \(ok ? "ok" : "FAILED")")
    return ok
}

// MARK: Reporting

struct Row {
    let benchmark: BenchmarkCase
    let ours: Double
    let peer: Double
    let allocations: Double?

    var ratio: Double {
        switch benchmark.ratio {
        case .overFloor: return ours / peer
        case .speedup: return peer / ours
        }
    }

    var ratioText: String {
        switch benchmark.ratio {
        case .overFloor: return "\(fixed(ratio, 2))x ours/floor"
        case .speedup: return "\(fixed(ratio, 2))x peer/ours"
        }
    }

    var targetText: String {
        var parts: [String] = []
        switch benchmark.ratio {
        case .overFloor(let most?): parts.append("ours <= \(fixed(most, 1))x floor")
        case .overFloor(nil): break
        case .speedup(let least?): parts.append(">= \(fixed(least, 0))x faster")
        case .speedup(nil): break
        }
        if case .atMost(let most) = benchmark.allocations { parts.append("<= \(fixed(most, 0)) allocs") }
        return parts.isEmpty ? "-" : parts.joined(separator: ", ")
    }

    /// nil when the case has no target.
    var met: Bool? {
        var checks: [Bool] = []
        switch benchmark.ratio {
        case .overFloor(let most?): checks.append(ratio <= most)
        case .overFloor(nil): break
        case .speedup(let least?): checks.append(ratio >= least)
        case .speedup(nil): break
        }
        if case .atMost(let most) = benchmark.allocations, let allocations {
            checks.append(allocations <= most)
        }
        return checks.isEmpty ? nil : !checks.contains(false)
    }
}

func fixed(_ value: Double, _ digits: Int) -> String {
    var scale = 1
    for _ in 0..<digits { scale *= 10 }
    let scaled = Int((abs(value) * Double(scale)).rounded())
    var text = (value < 0 && scaled != 0 ? "-" : "") + String(scaled / scale)
    if digits > 0 {
        let fraction = String(scaled % scale)
        text += "." + String(repeating: "0", count: digits - fraction.count) + fraction
    }
    return text
}

func printTable(_ rows: [Row]) {
    let header = ["case", "ours ns/op", "peer", "peer ns/op", "ratio", "allocs/op", "target", "met?"]
    printTable(header, rows.map { row in
        [
            row.benchmark.id, fixed(row.ours, 1), row.benchmark.peer, fixed(row.peer, 1), row.ratioText,
            row.allocations.map { fixed($0, 2) } ?? "-", row.targetText,
            row.met.map { $0 ? "yes" : "NO" } ?? "-",
        ]
    })
}

func printTable(_ header: [String], _ cells: [[String]]) {
    let widths = header.indices.map { column in
        ([header] + cells).map { $0[column].count }.max() ?? 0
    }
    func line(_ fields: [String]) -> String {
        let padded = zip(fields, widths).map { $0 + String(repeating: " ", count: $1 - $0.count) }
        return padded.dropLast().joined(separator: " | ") + " | " + fields[fields.count - 1]
    }
    print(line(header))
    print(widths.map { String(repeating: "-", count: $0) }.joined(separator: "-|-"))
    for fields in cells { print(line(fields)) }
}

/// One memory case measured: bytes per buffered value of each side (`nil`: not measured).
struct MemoryRow {
    let benchmark: MemoryCase
    let ours: Double?
    let peer: Double?

    /// Target: no more memory per value than the peer.
    var met: Bool? { ours.flatMap { ours in peer.map { ours <= $0 } } }

    var cells: [String] {
        [
            benchmark.id, benchmark.ours, ours.map { fixed($0, 2) } ?? "-", benchmark.peer,
            peer.map { fixed($0, 2) } ?? "-",
            ours.flatMap { ours in peer.flatMap { $0 > 0 ? "\(fixed(ours / $0, 2))x ours/peer" : nil } } ?? "-",
            "ours <= peer", met.map { $0 ? "yes" : "NO" } ?? "-",
        ]
    }
}

/// Runs of each side of a memory case; the median is reported.
let memoryRuns = 3

func measure(_ benchmark: MemoryCase) -> MemoryRow {
    func measured(_ side: String) -> Double? {
        let runs = (0..<memoryRuns).compactMap { _ in bytesPerValue(side, count: benchmark.count) }
        return runs.count == memoryRuns ? median(runs) : nil
    }
    return MemoryRow(benchmark: benchmark, ours: measured(benchmark.ours), peer: measured(benchmark.peer))
}

func json(_ rows: [Row], _ memoryRows: [MemoryRow]) -> String {
    func string(_ text: String) -> String {
        var quoted = "\""
        for character in text {
            if character == "\"" || character == "\\" { quoted.append("\\") }
            quoted.append(character)
        }
        return quoted + "\""
    }
    let objects = rows.map { row in
        "  {\"case\": \(string(row.benchmark.id)), \"ours_ns\": \(fixed(row.ours, 2)), "
            + "\"peer\": \(string(row.benchmark.peer)), \"peer_ns\": \(fixed(row.peer, 2)), "
            + "\"allocs\": \(row.allocations.map { fixed($0, 3) } ?? "null")}"
    }
    let memoryObjects = memoryRows.map { row in
        "  {\"case\": \(string(row.benchmark.id)), \"ours\": \(string(row.benchmark.ours)), "
            + "\"ours_bytes_per_value\": \(row.ours.map { fixed($0, 2) } ?? "null"), "
            + "\"peer\": \(string(row.benchmark.peer)), \"peer_bytes_per_value\": \(row.peer.map { fixed($0, 2) } ?? "null")}"
    }
    return "[\n" + (objects + memoryObjects).joined(separator: ",\n") + "\n]\n"
}

func writeFile(_ path: String, _ text: String) -> Bool {
    guard let file = fopen(path, "w") else { return false }
    defer { fclose(file) }
    return fputs(text, file) >= 0
}

// MARK: Running

func runBenchmarks(_ options: Options) async {
    #if DEBUG
    printError("warning: a debug build; measure with `swift run -c release ...`")
    #endif
    if let side = options.memorySide { await runMemorySide(side, count: options.iterations) }
    let selected = benchmarkCases.filter { options.filter == nil || $0.id == options.filter }
    let selectedMemory = options.profile != nil ? [] : memoryCases.filter { options.filter == nil || $0.id == options.filter }
    if selected.isEmpty && selectedMemory.isEmpty { usage() }

    if let side = options.profile {
        // For callgrind: the same work at two iteration counts; the difference is per-operation.
        do {
            for benchmark in selected {
                try await (side == .ours ? benchmark.ours : benchmark.peerBody)(options.iterations)
            }
        } catch {
            printError("benchmark failed: \(error)")
            exit(1)
        }
        return
    }

    let counting = malloc_counter_is_active() && mallocCounterSanityCheck()
    if !counting { printError("allocations are not counted on this platform") }
    print("median of \(runs) runs of ~\(Int(runNanoseconds / 1_000_000)) ms per side; allocations in a separate pass")
    print("")

    var rows: [Row] = []
    do {
        for benchmark in selected {
            let (ours, peer) = try await time(benchmark)
            var allocations: Double?
            if counting {
                if case .notCounted = benchmark.allocations {} else {
                    allocations = try await allocationsPerOperation(benchmark.ours)
                }
            }
            rows.append(Row(benchmark: benchmark, ours: ours, peer: peer, allocations: allocations))
        }
    } catch {
        printError("benchmark failed: \(error)")
        exit(1)
    }

    if !rows.isEmpty { printTable(rows) }
    // Memory: bytes per buffered value, each side in a child process (MemoryCases.swift).
    let memoryRows = selectedMemory.map(measure)
    if !memoryRows.isEmpty {
        print("\nbuffer memory: peak resident bytes per buffered value, median of \(memoryRuns) child processes per side")
        print("")
        printTable(["case", "ours", "bytes/value", "peer", "bytes/value", "ratio", "target", "met?"], memoryRows.map(\.cells))
    }
    let missed = rows.filter { $0.met == false }.map(\.benchmark.id) + memoryRows.filter { $0.met != true }.map(\.benchmark.id)
    if !missed.isEmpty { print("\ntargets missed: \(missed.joined(separator: ", "))") }

    if let path = options.jsonPath, !writeFile(path, json(rows, memoryRows)) {
        printError("could not write \(path)")
        exit(1)
    }
}
