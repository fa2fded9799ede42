// swift-tools-version: 6.0
// Proof that AsyncBridge coexists with Combine and RxSwift (README, Guarantees, 9): a file may
// import AsyncBridge beside them and keep compiling. Kept out of the library's own package, so
// that AsyncBridge stays dependency-free. Built by `.ci/run`:
//   swift build --package-path Coexistence -Xswiftc -warnings-as-errors
//
// - RxSwift, RxRelay, RxCocoa: stand-ins for the real modules (RxSwift cannot be a dependency
//   here). Each declares its module's public type names with their generic arity, and the API
//   the Rx adapter of Migration.md uses with RxSwift's own signatures. They are compiled in the
//   Swift 5 language mode, as the real RxSwift is, so that `@preconcurrency import RxSwift`
//   behaves in their clients as it does in an app.
// - RxNames: imports RxSwift, RxRelay, RxCocoa and AsyncBridge, and names every stand-in type
//   unqualified: a clash of names is an ambiguity, which breaks the build.
// - CombineNames: the same with OpenCombine (Combine's API on Linux) and AsyncBridge.
// - DocSnippets: the ```swift package=Coexistence blocks of the documentation, written here by
//   .ci/check-doc-snippets and built against these modules (the files it writes are deleted
//   after the build; Placeholder.swift keeps the target non-empty).
// - RxAdapter: Migration.md's RxSwift adapter, the file users paste (Sources/RxAdapter/
//   RxSwift+AsyncBridge.swift, the same text as the first ```swift package=Coexistence block of
//   Migration.md), and RxAdapterTests, its tests against the stand-ins, which behave as RxSwift
//   does where the adapter depends on it (subscriptions on the current-thread trampoline,
//   `take`, sources that emit inside `subscribe`). One of the tests checks that the file and
//   the block are the same text. Run by `.ci/run`:
//   swift build --package-path Coexistence --build-tests -Xswiftc -warnings-as-errors
//   swift test --package-path Coexistence --skip-build
//
// `.ci/check-public-names` compares the public names of AsyncBridge with the lists in
// .ci/public-names/, and checks that the stand-ins declare, and RxNames / CombineNames use,
// every name of those lists.
import PackageDescription

let rxStandIn: [SwiftSetting] = [.swiftLanguageMode(.v5)]

let package = Package(
    name: "AsyncBridgeCoexistence",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    dependencies: [
        .package(name: "AsyncBridge", path: "../"),
        .package(url: "https://github.com/OpenCombine/OpenCombine", exact: "0.14.0"),
    ],
    targets: [
        .target(name: "RxSwift", swiftSettings: rxStandIn),
        .target(name: "RxRelay", dependencies: ["RxSwift"], swiftSettings: rxStandIn),
        .target(name: "RxCocoa", dependencies: ["RxSwift", "RxRelay"], swiftSettings: rxStandIn),
        .target(
            name: "RxNames",
            dependencies: [
                "RxSwift", "RxRelay", "RxCocoa",
                .product(name: "AsyncBridge", package: "AsyncBridge"),
                .product(name: "AsyncBridgeFoundation", package: "AsyncBridge"),
            ]
        ),
        .target(
            name: "CombineNames",
            dependencies: [
                .product(name: "OpenCombine", package: "OpenCombine"),
                .product(name: "AsyncBridge", package: "AsyncBridge"),
                .product(name: "AsyncBridgeFoundation", package: "AsyncBridge"),
            ]
        ),
        .target(
            name: "RxAdapter",
            dependencies: ["RxSwift", "RxRelay", .product(name: "AsyncBridge", package: "AsyncBridge")]
        ),
        .testTarget(
            name: "RxAdapterTests",
            dependencies: ["RxAdapter", "RxSwift", "RxRelay", .product(name: "AsyncBridge", package: "AsyncBridge")]
        ),
        .target(name: "LegacyNetworking", swiftSettings: [.swiftLanguageMode(.v5)]),
        .target(
            name: "LegacyClient",
            dependencies: ["LegacyNetworking", .product(name: "AsyncBridge", package: "AsyncBridge")]
        ),
        .testTarget(
            name: "LegacyClientTests",
            dependencies: [
                "LegacyClient", "LegacyNetworking",
                .product(name: "AsyncBridge", package: "AsyncBridge"),
                .product(name: "AsyncBridgeTesting", package: "AsyncBridge"),
            ]
        ),
        .target(
            name: "DocSnippets",
            dependencies: [
                "RxSwift", "RxRelay", "RxCocoa",
                .product(name: "AsyncBridge", package: "AsyncBridge"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
