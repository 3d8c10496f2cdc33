// swift-tools-version: 6.1
// CardFlow benchmarks: a separate package so that the main package carries no benchmark
// dependencies. Run everything with `Benchmarks/run` (see Benchmarks/README.md).
import PackageDescription

let package = Package(
    name: "CardFlowBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        // name: is required: without it the package name follows the checkout's folder name.
        .package(name: "CardFlow", path: ".."),
        // Only MallocInterposer: the default RuntimeInterposer trait needs a package the mirror lacks.
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/ordo-one/benchmark.git", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // Shared by both benchmark programs: a fixed-answer card, reader/driver setup, DESFire and TON card setups.
        .target(
            name: "BenchSupport",
            dependencies: [
                .product(name: "CardFlow", package: "CardFlow"),
                .product(name: "CardFlowCCIDProtocol", package: "CardFlow"),
                .product(name: "CardFlowCCID", package: "CardFlow"),
                .product(name: "CardFlowSimulator", package: "CardFlow"),
                .product(name: "CardFlowDESFire", package: "CardFlow"),
                .product(name: "CardFlowTONCard", package: "CardFlow"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/BenchSupport"
        ),
        // package-benchmark: stack and session-layer overhead (wall clock, throughput, mallocs).
        .executableTarget(
            name: "StackBench",
            dependencies: [
                "BenchSupport",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "CardFlow", package: "CardFlow"),
                .product(name: "CardFlowCCIDProtocol", package: "CardFlow"),
                .product(name: "CardFlowCCID", package: "CardFlow"),
                .product(name: "CardFlowSimulator", package: "CardFlow"),
                .product(name: "CardFlowDESFire", package: "CardFlow"),
                .product(name: "CardFlowTONCard", package: "CardFlow"),
                .product(name: "CardFlowStorageCards", package: "CardFlow"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/StackBench",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Real-time measurements (latency-model efficiency, multi-reader scaling), JSON on stdout.
        .executableTarget(
            name: "cardflow-bench",
            dependencies: [
                "BenchSupport",
                .product(name: "CardFlow", package: "CardFlow"),
                .product(name: "CardFlowCCIDProtocol", package: "CardFlow"),
                .product(name: "CardFlowCCID", package: "CardFlow"),
                .product(name: "CardFlowSimulator", package: "CardFlow"),
                .product(name: "CardFlowDESFire", package: "CardFlow"),
            ],
            path: "Sources/cardflow-bench"
        ),
    ],
    swiftLanguageModes: [.v6]
)
