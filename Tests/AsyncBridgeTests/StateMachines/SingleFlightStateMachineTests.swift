@testable import AsyncBridge
import Testing

extension ExhaustiveStateMachineSuites {
    /// ``SingleFlightStateMachine`` as a plain value, against a table of one flight id per key: a
    /// caller joins the key's flight or starts a new one (its future made exactly once), and a
    /// flight leaves only when its own id ends, handed back once, and then held no more.
    @Suite("State machines: single flight")
    struct SingleFlightStateMachineTests {
        enum Input: CustomStringConvertible, CaseIterable {
            case arrive(Int)
            /// The key's current flight ends (its run finished, or every waiter left it).
            case end(Int)
            /// An earlier flight of the key (or one that never was) reports its end: its run
            /// finished after it was abandoned, or its cancel action and a caller both took it out.
            case endStale(Int)

            static let allCases: [Input] = [1, 2].flatMap { [.arrive($0), .end($0), .endStale($0)] }

            var description: String {
                switch self {
                case .arrive(let key): "arrive(k\(key))"
                case .end(let key): "end(k\(key))"
                case .endStale(let key): "endStale(k\(key))"
                }
            }
        }

        struct Driver: SequenceDriver {
            var machine = SingleFlightStateMachine<Int, Marker, Never>()
            /// The reference: each key's flight id, if it has one.
            var flights: [Int: UInt64] = [:]
            var lastID: UInt64 = 0
            /// Every flight made, by id: the marker its future holds.
            var made: [UInt64: Watched] = [:]
            var removed: Set<UInt64> = []
            /// Each key's flight that ended last.
            var lastEnded: [Int: UInt64] = [:]

            mutating func apply(_ input: Input) throws(Violation) -> Bool {
                switch input {
                case .arrive(let key):
                    var makes = 0
                    let arrival = machine.arrive(key) { id in
                        makes += 1
                        let marker = Marker("flight \(id)")
                        made[id] = Watched(marker, marker.name)
                        return SharedFuture(outcome: .success(marker))
                    }
                    switch arrival {
                    case .joining(let flight):
                        try require(makes == 0, "a joining caller made a future")
                        try require(flights[key] == flight.id, "joined flight \(flight.id), expected \(String(describing: flights[key]))")
                    case .starting(let flight):
                        try require(makes == 1, "a starting caller made \(makes) futures")
                        try require(flights[key] == nil, "started a flight while \(flights[key]!) flies")
                        try require(flight.id > lastID, "flight id \(flight.id) reused")
                        lastID = flight.id
                        flights[key] = flight.id
                    }
                case .end(let key):
                    guard let id = flights[key] else { return false }
                    let flight = machine.end(key, id)
                    try require(flight?.id == id, "flight \(id) not handed back when it ended")
                    flights[key] = nil
                    removed.insert(id)
                    lastEnded[key] = id
                case .endStale(let key):
                    let stale = lastEnded[key] ?? 0
                    let flight = machine.end(key, stale)
                    try require(flight == nil, "a stale end removed flight \(flight!.id)")
                }
                try require(machine.flights.mapValues(\.id) == flights, "table \(machine.flights.mapValues(\.id)), expected \(flights)")
                return true
            }

            mutating func end() throws(Violation) -> [Watched] {
                // A flight that left the table is held by nobody, while the machine lives on.
                for id in removed { try require(made[id]?.object == nil, "flight \(id) is still held after it ended") }
                return made.values.map { $0 }
            }
        }

        /// Every sequence of up to 6 inputs over {arrive, end, endStale} × {k1, k2}.
        @Test func everySequenceOfUpToSixInputs() {
            let count = checkEverySequence(over: Input.allCases, upTo: 6) { Driver() }
            #expect(count == 13_775)
        }
    }
}
