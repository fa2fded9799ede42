import Foundation
import Testing

/// What to run, read from the environment:
/// - `DIFF_SEED='<operator>:<seed>'` runs that one case (a failure's report prints it);
/// - `DIFF_CASES=n` runs `n` cases per operator instead of 5,000;
/// - `DIFF_BASE_SEED=n` draws another series of cases.
struct DifferentialRun {
    static let current = DifferentialRun(ProcessInfo.processInfo.environment)

    let casesPerOperator: Int
    let baseSeed: UInt64
    /// The one case `DIFF_SEED` names, if it names one.
    let single: (operator: String, seed: UInt64)?

    init(_ environment: [String: String]) {
        casesPerOperator = environment["DIFF_CASES"].flatMap { Int($0) } ?? 5_000
        baseSeed = environment["DIFF_BASE_SEED"].flatMap { UInt64($0) } ?? 0x5EED_D1FF
        single = environment["DIFF_SEED"].flatMap { value in
            guard let colon = value.lastIndex(of: ":"), let seed = UInt64(value[value.index(after: colon)...]) else {
                return nil
            }
            return (String(value[..<colon]), seed)
        }
    }

    /// The seeds of the cases to run for `name`: a series fixed by the base seed and the name.
    func seeds(for name: String) -> [UInt64] {
        if let single { return single.operator == name ? [single.seed] : [] }
        // FNV-1a of the name, so that each operator gets a series of its own.
        let nameHash = name.utf8.reduce(0xCBF2_9CE4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
        var generator = SplitMix64(seed: baseSeed ^ nameHash)
        return (0..<casesPerOperator).map { _ in generator.next() }
    }
}

extension DifferentialOperator: CustomTestStringConvertible {
    var testDescription: String { name }
}

@Suite("Differential: seeded random scripts through AsyncBridge and OpenCombine 0.14.0")
struct DifferentialTests {
    @Test(
        "Every subscriber gets the events Combine's gets, step for step, but where a documented difference says otherwise",
        arguments: DifferentialOperator.all
    )
    func sameEventsAsCombine(_ compared: DifferentialOperator) {
        var reported = 0
        for seed in DifferentialRun.current.seeds(for: compared.name) {
            guard let mismatch = compared.check(seed, true) else { continue }
            Issue.record(Comment(rawValue: mismatch))
            reported += 1
            if reported == 3 { return }  // the first few are enough to act on
        }
    }

    @Test(
        "Each documented difference is real: without it, some case disagrees",
        .enabled(if: DifferentialRun.current.single == nil),
        arguments: DocumentedDifference.allCases
    )
    func eachDocumentedDifferenceIsNeeded(_ difference: DocumentedDifference) {
        let applying = DifferentialOperator.all.filter { $0.difference == difference }
        #expect(!applying.isEmpty, "no operator applies \(difference)")
        for compared in applying {
            let disagrees = DifferentialRun.current.seeds(for: compared.name).contains { compared.check($0, false) != nil }
            #expect(disagrees, "\(compared.name) agrees with Combine without \(difference): is the difference gone?")
        }
    }

    @Test("DIFF_SEED names a compared operator", .enabled(if: DifferentialRun.current.single != nil))
    func theCaseToRunExists() {
        let name = DifferentialRun.current.single?.operator
        #expect(DifferentialOperator.all.contains { $0.name == name }, "no operator named \(name ?? "")")
    }
}
