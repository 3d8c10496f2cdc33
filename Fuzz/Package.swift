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
        // One binary, every target: CARDFLOW_FUZZ_TARGET selects the decoder (one link, not twenty).
        .executableTarget(
            name: "CardFlowFuzz",
            dependencies: [
                .product(name: "CCID", package: cardFlow),
                .product(name: "CardFlow", package: cardFlow),
                .product(name: "CardSimulator", package: cardFlow),
                .product(name: "CardDaemon", package: cardFlow),
                .product(name: "Relay", package: cardFlow),
                .product(name: "NDEF", package: cardFlow),
                .product(name: "ISO15693", package: cardFlow),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            // libFuzzer brings main(); the Swift module must not define one.
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
    ],
    swiftLanguageModes: [.v6]
)
