import AsyncBridge

/// The coordination spoke's cases: `single-flight-1000`.
let coordinationCases: [BenchmarkCase] = []
