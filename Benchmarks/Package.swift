// swift-tools-version: 6.0
// AsyncBridge benchmarks, kept out of the library's own package so that AsyncBridge stays
// dependency-free. Run from the repository root:
//   swift run -c release --package-path Benchmarks asyncbridge-bench [--json PATH] [--filter ID]
import PackageDescription

let package = Package(
    name: "AsyncBridgeBenchmarks",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "asyncbridge-bench", targets: ["asyncbridge-bench"]),
    ],
    dependencies: [
        .package(name: "AsyncBridge", path: "../"),
        // The Combine bridge, compiled against OpenCombine (Sources/AsyncBridge/Combine).
        .package(name: "AsyncBridgeCombineChecks", path: "../CombineChecks"),
        .package(url: "https://github.com/OpenCombine/OpenCombine", exact: "0.14.0"),
        .package(url: "https://github.com/apple/swift-async-algorithms", exact: "1.1.4"),
    ],
    targets: [
        // Counts malloc calls by defining malloc & co. in the executable (Linux/glibc only).
        .target(name: "MallocCounter"),
        // Runs the main dispatch queue on the main thread (libdispatch's run-loop hooks on Linux).
        .target(name: "MainQueue"),
        .executableTarget(
            name: "asyncbridge-bench",
            dependencies: [
                "MallocCounter",
                "MainQueue",
                .product(name: "AsyncBridge", package: "AsyncBridge"),
                // NotificationCenter.flow(for:object:_:), for the notification-* cases.
                .product(name: "AsyncBridgeFoundation", package: "AsyncBridge"),
                .product(name: "AsyncBridgeOpenCombine", package: "AsyncBridgeCombineChecks"),
                .product(name: "OpenCombine", package: "OpenCombine"),
                .product(name: "OpenCombineDispatch", package: "OpenCombine"),
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
            ]
        ),
        // Which AsyncBridge types a value crosses on a path, counted under callgrind
        // (README, "Types on a path"; path-types.py reads the counts).
        .executableTarget(
            name: "path-types",
            dependencies: [.product(name: "AsyncBridge", package: "AsyncBridge")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
