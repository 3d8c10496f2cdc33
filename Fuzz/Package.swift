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
        .target(name: "CCIDFuzzTargets", dependencies: ["FuzzSupport", .product(name: "CCID", package: cardFlow)]),
        .target(
            name: "TagFuzzTargets",
            dependencies: [
                "FuzzSupport",
                .product(name: "CardFlow", package: cardFlow),
                .product(name: "NDEF", package: cardFlow),
                .product(name: "ISO15693", package: cardFlow),
            ]),
        // Every target in one binary (CARDFLOW_FUZZ_TARGET selects the decoder): for reproducing
        // any crash, writing seeds, and the targets that need the simulator, daemon or relay.
        .executableTarget(
            name: "CardFlowFuzz",
            dependencies: [
                "FuzzSupport", "CCIDFuzzTargets", "TagFuzzTargets",
                .product(name: "CCID", package: cardFlow),
                .product(name: "CardFlow", package: cardFlow),
                .product(name: "CardSimulator", package: cardFlow),
                .product(name: "CardSimulatorCards", package: cardFlow),
                .product(name: "CardDaemon", package: cardFlow),
                .product(name: "CardDaemonFlows", package: cardFlow),
                .product(name: "CardDaemonControl", package: cardFlow),
                .product(name: "Relay", package: cardFlow),
                .product(name: "DESFire", package: cardFlow),
                .product(name: "NDEF", package: cardFlow),
                .product(name: "ISO15693", package: cardFlow),
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
