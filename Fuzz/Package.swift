// swift-tools-version: 6.1
// libFuzzer targets for CardFlow's decoders of outside bytes. A separate package so the normal
// build is untouched: build and run it with Scripts/fuzz.sh (swift build --sanitize=fuzzer).
import Foundation
import PackageDescription

// A path dependency's identity is its folder's name, which depends on where the clone lives.
let cardFlow = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let package = Package(
    name: "CardFlowFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
    ],
    targets: [
        .target(name: "FuzzSupport"),
        .target(
            name: "CCIDFuzzTargets",
            dependencies: ["FuzzSupport", .product(name: "CardFlowCCIDProtocol", package: cardFlow)]),
        .target(
            name: "TagFuzzTargets",
            dependencies: [
                "FuzzSupport",
                .product(name: "CardFlow", package: cardFlow),
                .product(name: "CardFlowNDEF", package: cardFlow),
                .product(name: "CardFlowISO15693", package: cardFlow),
            ]),
        // Every target in one binary (CARDFLOW_FUZZ_TARGET selects the decoder): for reproducing
        // any crash, writing seeds, and the targets that need the simulator, daemon or relay.
        .executableTarget(
            name: "CardFlowFuzz",
            dependencies: [
                "FuzzSupport", "CCIDFuzzTargets", "TagFuzzTargets",
                .product(name: "CardFlowCCIDProtocol", package: cardFlow),
                .product(name: "CardFlow", package: cardFlow),
                .product(name: "CardFlowSimulator", package: cardFlow),
                .product(name: "CardFlowSimulatorCards", package: cardFlow),
                .product(name: "CardFlowDaemon", package: cardFlow),
                .product(name: "CardFlowDaemonFlows", package: cardFlow),
                .product(name: "CardFlowDaemonControl", package: cardFlow),
                .product(name: "CardFlowRelay", package: cardFlow),
                .product(name: "CardFlowDESFire", package: cardFlow),
                .product(name: "CardFlowNDEF", package: cardFlow),
                .product(name: "CardFlowISO15693", package: cardFlow),
                .product(name: "CardFlowUFR", package: cardFlow),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            // libFuzzer brings main(); the Swift module must not define one.
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
        // Light binaries: libFuzzer scans every coverage counter of the binary after each input,
        // so a binary without NIO, BoringSSL and the daemon runs its small decoders far faster.
        .executableTarget(
            name: "CardFlowFuzzCCID", dependencies: ["FuzzSupport", "CCIDFuzzTargets"],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
        .executableTarget(
            name: "CardFlowFuzzTags", dependencies: ["FuzzSupport", "TagFuzzTargets"],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
    ],
    swiftLanguageModes: [.v6]
)
