// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "AsyncBridge",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "AsyncBridge", targets: ["AsyncBridge"]),
        .library(name: "AsyncBridgeFoundation", targets: ["AsyncBridgeFoundation"]),
        .library(name: "AsyncBridgeTesting", targets: ["AsyncBridgeTesting"]),
        .executable(name: "asyncbridge-demo", targets: ["AsyncBridgeDemo"]),
    ],
    targets: [
        .target(name: "AsyncBridge"),
        .target(name: "AsyncBridgeFoundation", dependencies: ["AsyncBridge"]),
        .target(name: "AsyncBridgeTesting", dependencies: ["AsyncBridge"]),
        .executableTarget(name: "AsyncBridgeDemo", dependencies: ["AsyncBridge", "AsyncBridgeFoundation", "GitFeed"]),
        .target(name: "GitFeed", dependencies: ["AsyncBridge"]),
        .testTarget(
            name: "AsyncBridgeTests",
            dependencies: ["AsyncBridge", "AsyncBridgeFoundation", "AsyncBridgeTesting"],
            exclude: ["Fixtures"]
        ),
        .testTarget(name: "AsyncBridgeTestingTests", dependencies: ["AsyncBridgeTesting"]),
        .testTarget(name: "GitFeedTests", dependencies: ["GitFeed", "AsyncBridge"]),
    ],
    swiftLanguageModes: [.v6]
)
