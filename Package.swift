// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "CardFlow",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "CardFlow", targets: ["CardFlow"]),
        .library(name: "CCID", targets: ["CCID"]),
        .library(name: "CardSimulator", targets: ["CardSimulator"]),
        .executable(name: "cardctl", targets: ["cardctl"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
    ],
    targets: [
        // USB CCID driver: message codec, class descriptor, exchange levels, T=1, transports.
        .target(
            name: "CCID",
            dependencies: [.product(name: "Logging", package: "swift-log")]
        ),
        // Core: APDUs, card channels, errors (sessions and flows arrive with later work).
        .target(
            name: "CardFlow",
            dependencies: ["CCID", .product(name: "Logging", package: "swift-log")]
        ),
        // Virtual CCID readers and cards speaking the USB side of the protocol.
        .target(
            name: "CardSimulator",
            dependencies: ["CardFlow", "CCID", .product(name: "Logging", package: "swift-log")]
        ),
        .executableTarget(
            name: "cardctl",
            dependencies: [
                "CardFlow", "CCID", "CardSimulator",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Examples/cardctl"
        ),
        .testTarget(name: "CardFlowTests", dependencies: ["CardFlow", "CardSimulator", "CCID"]),
        .testTarget(name: "CCIDTests", dependencies: ["CCID", "CardSimulator", "CardFlow"]),
        .testTarget(name: "CardSimulatorTests", dependencies: ["CardSimulator", "CardFlow", "CCID"]),
        .testTarget(name: "CardctlTests", dependencies: ["cardctl"]),
    ],
    swiftLanguageModes: [.v6]
)
