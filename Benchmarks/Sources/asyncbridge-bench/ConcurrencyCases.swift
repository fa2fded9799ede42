import AsyncBridge

/// The concurrency spoke's cases: `values-throughput`, `channel-1to1`, `channel-1to4`.
let concurrencyCases: [BenchmarkCase] = []
