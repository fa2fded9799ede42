import Testing

/// A rule of a state machine, broken: what was expected, in words.
struct Violation: Error, CustomStringConvertible {
    var description: String
}

/// Fails with `message` unless `condition` holds.
func require(_ condition: Bool, _ message: @autoclosure () -> String) throws(Violation) {
    if !condition { throw Violation(description: message()) }
}

/// Drives one state machine, as a plain value, through a sequence of inputs, checking its rules
/// after each one. A fresh driver is made for every sequence.
protocol SequenceDriver {
    associatedtype Input: CustomStringConvertible

    /// Feeds `input` to the machine and checks the rules. Returns `false`, having changed
    /// nothing, when `input` cannot happen now (the machine's owner never calls it in this
    /// state): the sequence, and every longer one that starts with it, is skipped.
    mutating func apply(_ input: Input) throws(Violation) -> Bool

    /// The checks at the end of a sequence. Returns the objects that nobody may hold once the
    /// driver (with the machine, and every action it handed out) is gone.
    mutating func end() throws(Violation) -> [Watched]
}

/// A weak reference to an object that must have been released.
struct Watched {
    weak var object: AnyObject?
    var name: String

    init(_ object: AnyObject, _ name: String) {
        self.object = object
        self.name = name
    }
}

/// A class instance whose release shows that whatever held it let it go.
final class Marker: Sendable, CustomStringConvertible {
    let name: String
    init(_ name: String) { self.name = name }
    var description: String { name }
}

/// Runs every sequence over `alphabet` of at most `maxLength` inputs through a fresh driver
/// made by `make` (skipping those it says cannot happen), and records an issue for the shortest
/// one that breaks a rule. Returns how many sequences were run, the empty one included.
@discardableResult
func checkEverySequence<Driver: SequenceDriver>(
    over alphabet: [Driver.Input],
    upTo maxLength: Int,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ make: () -> Driver
) -> Int {
    runEverySequence(over: alphabet, upTo: maxLength, make).record(sourceLocation: sourceLocation)
}

/// What running every sequence found: for a run made where no test is current (on a thread of
/// its own), recorded afterwards by the test.
struct SequenceRun: Sendable {
    /// How many sequences ran, the empty one included.
    var count = 0
    /// The shortest sequence that broke a rule, and the rule.
    var shortestFailure: (sequence: [String], violation: String)?

    /// Records an issue for the failure, if any; returns ``count``.
    func record(sourceLocation: SourceLocation = #_sourceLocation) -> Int {
        if let (sequence, violation) = shortestFailure {
            Issue.record("[\(sequence.joined(separator: ", "))]: \(violation)", sourceLocation: sourceLocation)
        }
        return count
    }
}

/// Runs every sequence, depth first, as ``checkEverySequence(over:upTo:sourceLocation:_:)``
/// does, and returns what it found.
func runEverySequence<Driver: SequenceDriver>(
    over alphabet: [Driver.Input],
    upTo maxLength: Int,
    _ make: () -> Driver
) -> SequenceRun {
    var run = SequenceRun()
    var prefix: [Driver.Input] = []

    /// Runs `prefix`; whether to go on with longer sequences that start with it: not when it
    /// cannot happen, nor when it broke a rule.
    func visit() -> Bool {
        do throws(Violation) {
            guard let watched = try replay(prefix, make()) else { return false }
            run.count += 1
            for object in watched where object.object != nil {
                throw Violation(description: "\(object.name) is still held once everything is dropped")
            }
        } catch {
            run.count += 1
            if run.shortestFailure.map({ prefix.count < $0.sequence.count }) ?? true {
                run.shortestFailure = (prefix.map(\.description), error.description)
            }
            return false  // a longer sequence that starts with a broken one breaks it too
        }
        return true
    }

    func extend() {
        guard visit(), prefix.count < maxLength else { return }
        for input in alphabet {
            prefix.append(input)
            extend()
            prefix.removeLast()
        }
    }

    extend()
    return run
}

/// Runs `sequence` through a fresh driver; `nil` if one of its inputs cannot happen. The driver
/// is gone when this returns, so what it watched can be checked.
private func replay<Driver: SequenceDriver>(
    _ sequence: [Driver.Input], _ driver: consuming Driver
) throws(Violation) -> [Watched]? {
    var driver = driver
    for (index, input) in sequence.enumerated() {
        do throws(Violation) {
            guard try driver.apply(input) else { return nil }
        } catch {
            throw Violation(description: "step \(index + 1) (\(input)): \(error)")
        }
    }
    do throws(Violation) {
        return try driver.end()
    } catch {
        throw Violation(description: "at the end: \(error)")
    }
}

/// A stand-in for a continuation, told apart by `id`, for a machine that only keeps and hands
/// back continuations: never to be resumed. Its address is above the first page, where no
/// enum mistakes it for one of its other cases.
func standInContinuation<T>(_ id: Int) -> UnsafeContinuation<T, Never> {
    unsafeBitCast(UnsafeRawPointer(bitPattern: 0x10_0000 + id * 16)!, to: UnsafeContinuation<T, Never>.self)
}

/// The `id` of a continuation made by ``standInContinuation(_:)``.
func standInID<T>(_ continuation: UnsafeContinuation<T, Never>) -> Int {
    (unsafeBitCast(continuation, to: Int.self) - 0x10_0000) / 16
}

/// The exhaustive suites, one at a time: each runs hundreds of thousands of sequences on the
/// thread that runs it, and two at once would hold both threads of a two-core machine's
/// cooperative pool, starving the tests that wait on it.
@Suite(.serialized)
enum ExhaustiveStateMachineSuites {}
