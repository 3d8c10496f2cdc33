// swift-tools-version: 6.1
// CardFlow benchmarks: a separate package so that the main package carries no benchmark
// dependencies (package-benchmark). Its set-ups (CardFlowBenchSupport) and cardflow-bench, which
// need nothing beyond CardFlow, are in the main package. Run everything with `Benchmarks/run`
// (see Benchmarks/README.md).
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
        // package-benchmark: stack and session-layer overhead (wall clock, throughput, mallocs).
        .executableTarget(
            name: "StackBench",
            dependencies: [
                .product(name: "CardFlowBenchSupport", package: "CardFlow"),
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
        )
    ],
    swiftLanguageModes: [.v6]
)
