// swift-tools-version: 6.1
import PackageDescription

// Package traits keep a card-library-only dependent light: with `traits: []` on its `.package`
// line it resolves and builds none of SwiftNIO, GRDB, Prometheus, ServiceLifecycle, the WebSocket
// client, NIOSSL or ArgumentParser. This package's own build (and a dependent that names no
// traits) has every trait: the daemon, the relay, network readers and the command-line tools.
// A product whose trait is off does not build (its dependencies are not there).
let networkReaders: TargetDependencyCondition? = .when(traits: ["NetworkReaders"])
let relay: TargetDependencyCondition? = .when(traits: ["Relay"])
let daemon: TargetDependencyCondition? = .when(traits: ["Daemon"])
let commandLineTools: TargetDependencyCondition? = .when(traits: ["CommandLineTools"])
let fleet: TargetDependencyCondition? = .when(traits: ["Fleet"])
let bench: TargetDependencyCondition? = .when(traits: ["Bench"])

let package = Package(
    name: "CardFlow",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "CardFlow", targets: ["CardFlow"]),
        .library(name: "CCID", targets: ["CCID"]),
        .library(name: "CardFlowCCID", targets: ["CardFlowCCID"]),
        .library(name: "CardFlowVPCD", targets: ["CardFlowVPCD"]),
        .library(name: "CardFlowPCSC", targets: ["CardFlowPCSC"]),
        .library(name: "CardFlowUFR", targets: ["CardFlowUFR"]),
        .library(name: "CardFlowSimulatorUFR", targets: ["CardFlowSimulatorUFR"]),
        .library(name: "CardSimulatorCards", targets: ["CardSimulatorCards"]),
        .library(name: "CardSimulator", targets: ["CardSimulator"]),
        .library(name: "CardSimulatorUSB", targets: ["CardSimulatorUSB"]),
        .library(name: "DESFire", targets: ["DESFire"]),
        .library(name: "TONCard", targets: ["TONCard"]),
        .library(name: "CardDaemon", targets: ["CardDaemon"]),
        .library(name: "CardDaemonControl", targets: ["CardDaemonControl"]),
        .library(name: "CardDaemonFlows", targets: ["CardDaemonFlows"]),
        .library(name: "CardDaemonSimulation", targets: ["CardDaemonSimulation"]),
        .library(name: "CardFleet", targets: ["CardFleet"]),
        .library(name: "CardFleetPostgres", targets: ["CardFleetPostgres"]),
        .library(name: "CardBench", targets: ["CardBench"]),
        .library(name: "CardSimulatorReaders", targets: ["CardSimulatorReaders"]),
        .library(name: "Relay", targets: ["Relay"]),
        .library(name: "PCSC", targets: ["PCSC"]),
        // For the fuzz package (Fuzz/), which reaches the NDEF and ISO 15693 decoders.
        .library(name: "NDEF", targets: ["NDEF"]),
        .library(name: "ISO15693", targets: ["ISO15693"]),
        .library(name: "StorageCards", targets: ["StorageCards"]),
        .library(name: "VPCD", targets: ["VPCD"]),
        .executable(name: "cardctl", targets: ["cardctl"]),
        .executable(name: "cardd", targets: ["cardd"]),
        .executable(name: "vpcdtool", targets: ["vpcdtool"]),
    ],
    traits: [
        .trait(
            name: "NetworkReaders",
            description: "vsmartcard's vpcd protocol: the VPCD and CardFlowVPCD targets (SwiftNIO)."),
        .trait(name: "Relay", description: "The remote APDU relay over WebSocket (swift-websocket, NIOSSL)."),
        .trait(
            name: "Daemon", description: "The cardd daemon library (GRDB, Prometheus, ServiceLifecycle, SwiftNIO).",
            enabledTraits: ["NetworkReaders", "Relay"]),
        .trait(
            name: "Fleet",
            description: "Many cardd hosts on one PostgreSQL: the CardFleetPostgres target (postgres-nio)."),
        .trait(
            name: "Bench",
            description: "Measuring readers and cards for users: the CardBench target (hdrhistogram-swift)."),
        .trait(
            name: "CommandLineTools", description: "cardctl, cardd and vpcdtool (ArgumentParser).",
            enabledTraits: ["Daemon", "Fleet", "Bench"]),
        .default(enabledTraits: ["CommandLineTools"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket.git", from: "1.6.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
        // `swift package generate-documentation` (Scripts/docs-check.sh); a command plugin, linked into no product.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(name: "CLibUSB", pkgConfig: "libusb-1.0", providers: [.apt(["libusb-1.0-0-dev"])]),
        .systemLibrary(name: "CLibCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CUMockdev", pkgConfig: "umockdev-1.0", providers: [.apt(["libumockdev-dev"])]),
        .systemLibrary(name: "CPCSCLite", pkgConfig: "libpcsclite", providers: [.apt(["libpcsclite-dev"])]),
        // PC/SC backend over libpcsclite, for hosts where pcscd owns the readers. Standalone: no CardFlow import yet.
        .target(
            name: "PCSC", dependencies: ["CPCSCLite", "HexFormatting", .product(name: "Logging", package: "swift-log")]),
        // Bytes as hex text for logs and descriptions: the one implementation below CardFlow's public `hexString`.
        .target(name: "HexFormatting"),
        // First-come, first-served admission for actors' exclusive sections (CCID slots, CardFlow readers).
        .target(name: "AsyncAdmission"),
        // USB CCID driver: message codec, class descriptor, exchange levels, T=1, transports.
        .target(
            name: "CCID",
            dependencies: [
                "CLibUSB", "AsyncAdmission", "HexFormatting", .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Core: APDUs, card channels, readers over any ReaderDriver backend, sessions, flows,
        // key store. Builds without libusb: the CCID backend is CardFlowCCID.
        .target(
            name: "CardFlow",
            dependencies: [
                "AsyncAdmission", "HexFormatting",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // The direct CCID driver as a CardFlow reader backend: ReaderDriver per slot, USB hotplug registry.
        .target(
            name: "CardFlowCCID",
            dependencies: [
                "CardFlow", "CCID",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // Simulated cards written from their specifications (ISO 7816, DESFire, TON, NDEF tags, ISO 15693,
        // NTAG, MIFARE Classic, FeliCa, hostile cards): no CCID, usable by any backend's simulated reader.
        .target(
            name: "CardSimulatorCards",
            dependencies: [
                "CardFlow", "CardCrypto", "HexFormatting",
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        // The virtual CCID reader (the USB side of the protocol) that places the simulated cards.
        .target(
            name: "CardSimulator",
            dependencies: [
                "CardSimulatorCards", "CardFlow", "CCID", "CardFlowCCID", "CardCrypto", "HexFormatting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Cryptographic primitives card protocols share (DESFire, TON): AES, CMAC, 3DES, CRCs.
        .target(
            name: "CardCrypto",
            dependencies: [
                "CLibCrypto",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // NFC Forum NDEF messages and records, and NDEF on NFC Forum tags (through CardFlow sessions).
        .target(name: "NDEF", dependencies: ["CardFlow", "ISO15693"]),
        // ISO 15693 vicinity tags through CCID readers (PC/SC part 3 block access, FF C2 exchange).
        .target(name: "ISO15693", dependencies: ["CardFlow"]),
        // Storage cards through PC/SC part 3 pseudo-APDUs (MIFARE Classic: keys, blocks, value
        // blocks, MAD, NDEF), with the reader families' dialects; no CCID, no libusb.
        .target(
            name: "StorageCards", dependencies: ["CardFlow", "NDEF", .product(name: "Logging", package: "swift-log")]),
        // MIFARE DESFire EV1 client: ISO-wrapped native commands, authentication, secure messaging, flows.
        .target(
            name: "DESFire",
            dependencies: [
                "CardFlow", "CardCrypto", .product(name: "Logging", package: "swift-log"),
            ]),
        // TON Labs security card client (TonWalletApplet + CoinManager): operations, activation, HMAC, keychain.
        .target(
            name: "TONCard",
            dependencies: [
                "CardFlow", "CardCrypto",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // umockdev-based USB device emulation (C): presents a CCID reader to libusb programs.
        .target(name: "CCIDEmulator", dependencies: ["CUMockdev"]),
        // Exposes a CardSimulator virtual reader as a USB device through CCIDEmulator.
        .target(
            name: "CardSimulatorUSB",
            dependencies: ["CardSimulator", "CCID", "CCIDEmulator", .product(name: "Logging", package: "swift-log")]
        ),
        // The cardd daemon's parts: configuration, reader supervision, job log, control socket, metrics.
        // Its readers come from the reader sources and its flows from the flow kinds the program
        // injects: no backend and no card family is linked here.
        .target(
            name: "CardDaemon",
            dependencies: [
                "CardFlow", "CardDaemonControl", "CardFleet",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus", condition: daemon),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: daemon),
                .product(name: "UnixSignals", package: "swift-service-lifecycle", condition: daemon),
                .product(name: "GRDB", package: "GRDB.swift", condition: daemon),
                .product(name: "NIOCore", package: "swift-nio", condition: networkReaders),
                .product(name: "NIOPosix", package: "swift-nio", condition: networkReaders),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: networkReaders),
            ]),
        // The daemon's flow kinds, one file each (report, apdu, NDEF, ISO 15693, DESFire, NTAG 424 SUN,
        // MIFARE Classic value, NTAG protect, TON activation, relay) and their list, `DaemonFlowKinds.standard`.
        .target(
            name: "CardDaemonFlows",
            dependencies: [
                "CardDaemon", "CardDaemonControl", "CardFlow", "NDEF", "ISO15693", "DESFire", "TONCard", "Relay",
                "StorageCards", .product(name: "Logging", package: "swift-log"),
            ]),
        // cardd's control-socket protocol, client side and wire types: what cardctl links instead of CardDaemon.
        .target(
            name: "CardDaemonControl",
            dependencies: [
                "CardFlow",
                .product(name: "NIOCore", package: "swift-nio", condition: networkReaders),
                .product(name: "NIOPosix", package: "swift-nio", condition: networkReaders),
            ]),
        // The simulator as a reader source (`sim:` selectors).
        .target(
            name: "CardSimulatorReaders",
            dependencies: ["CardSimulator", "CardFlow", "CardFlowCCID"]),
        // cardd --simulate: the schedule that moves simulated cards, its faults and report, the demo rules.
        .target(
            name: "CardDaemonSimulation",
            dependencies: [
                "CardDaemon", "CardDaemonControl", "CardDaemonFlows", "CardSimulator", "CardFlow", "TONCard",
                .product(name: "Logging", package: "swift-log"),
            ]),
        // The fleet's model: records, claims, completions, hosts, the import file format, and the
        // queue a cardd host claims records from. CardFlow only (for its error categories).
        .target(name: "CardFleet", dependencies: ["CardFlow"]),
        // The fleet queue on PostgreSQL: claims with leases and fencing tokens, spoilage, hosts,
        // LISTEN/NOTIFY. What cardd and cardctl's `fleet` commands use.
        .target(
            name: "CardFleetPostgres",
            dependencies: [
                "CardFleet", "HexFormatting",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: fleet),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: fleet),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // Measuring readers and cards for users (`cardctl bench`): closed-loop latency with HdrHistogram,
        // size sweeps with a fitted cost model, per-operation timings, comparisons, text and HTML reports.
        .target(
            name: "CardBench",
            dependencies: [
                "CardFlow", "CardFlowCCID", "CCID", "DESFire", "TONCard", "NDEF", "ISO15693", "CardCrypto",
                "HexFormatting",
                .product(name: "Histogram", package: "hdrhistogram-swift", condition: bench),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // Remote APDU relay: a WebSocket service drives the card through us (gate, recovery, limits).
        .target(
            name: "Relay",
            dependencies: [
                "CardFlow",
                .product(name: "WSClient", package: "swift-websocket", condition: relay),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: relay),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: relay),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // Network readers over vsmartcard's vpcd protocol (TCP), both roles; nothing from CardFlow.
        .target(
            name: "VPCD",
            dependencies: [
                "HexFormatting",
                .product(name: "NIOCore", package: "swift-nio", condition: networkReaders),
                .product(name: "NIOPosix", package: "swift-nio", condition: networkReaders),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // Readers pcscd owns as a CardFlow reader backend.
        .target(
            name: "CardFlowPCSC", dependencies: ["CardFlow", "PCSC", .product(name: "Logging", package: "swift-log")]),
        // Network readers (vpcd listener) as a CardFlow reader backend.
        .target(name: "CardFlowVPCD", dependencies: ["CardFlow", "VPCD"]),
        // Digital Logic uFR readers (uFR COM protocol over TCP, UDP or a serial device) as a CardFlow reader backend.
        .target(
            name: "CardFlowUFR",
            dependencies: [
                "CardFlow", "AsyncAdmission", .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio", condition: networkReaders),
                .product(name: "NIOPosix", package: "swift-nio", condition: networkReaders),
            ]),
        // A simulated uFR Nano Online (TCP and UDP on loopback) written from the protocol documents,
        // holding any simulated card; hostile modes for the backend's tests.
        .target(
            name: "CardFlowSimulatorUFR",
            dependencies: [
                "CardSimulatorCards", "CardFlow", .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio", condition: networkReaders),
                .product(name: "NIOPosix", package: "swift-nio", condition: networkReaders),
            ]),
        // vpcd companion tool: reader side for vicc, card side for pcscd, loopback rate (Scripts/vpcd-check.sh).
        .executableTarget(
            name: "vpcdtool",
            dependencies: [
                "VPCD", "CardSimulator", "CardFlow", "CardFlowVPCD",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: commandLineTools),
                .product(name: "Logging", package: "swift-log"),
            ], path: "Examples/vpcdtool"),
        // Benchmarks/pcsc-backend/run.sh's Swift side: a PCSCCardConnection transmit loop.
        .executableTarget(
            name: "pcsc-transmit-loop",
            dependencies: ["PCSC", "CardFlow", "CardFlowPCSC", .product(name: "Logging", package: "swift-log")],
            path: "Benchmarks/pcsc-backend/TransmitLoop"
        ),
        .executableTarget(
            name: "cardd",
            dependencies: [
                "CardDaemon", "CardDaemonControl", "CardDaemonFlows", "CardDaemonSimulation", "CardSimulator",
                "CardSimulatorReaders",
                "CardFlow", "CardFlowCCID", "CardFlowPCSC", "CardFlowVPCD", "CardFlowUFR", "CardFleet",
                "CardFleetPostgres",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: commandLineTools),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: daemon),
            ],
            path: "Examples/cardd",
            exclude: ["README.md", "cardd.service", "60-cardflow-readers.rules", "cardd.example.json"]
        ),
        .executableTarget(
            name: "cardctl",
            dependencies: [
                "CardFlow", "CCID", "CardFlowCCID", "CardFlowVPCD", "CardFlowUFR", "VPCD", "CardFlowPCSC", "PCSC",
                "CardSimulator",
                "CardSimulatorUSB", "NDEF", "ISO15693", "DESFire", "TONCard", "CardDaemonControl",
                "CardSimulatorReaders", "Relay", "CardFleet", "CardFleetPostgres", "CardBench", "StorageCards",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: commandLineTools),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Examples/cardctl"
        ),
        .testTarget(
            name: "CardFlowTests",
            dependencies: [
                "CardSimulatorTestSupport",
                "CardFlow", "CardFlowCCID", "CardSimulator", "CCID", "HexFormatting",
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(name: "CCIDTests", dependencies: ["CCID", "CardSimulator", "CardFlow", "CardFlowCCID"]),
        .testTarget(
            name: "CardSimulatorTests",
            dependencies: [
                "CardSimulatorCards",
                "CardSimulator", "CardFlow", "CardFlowCCID", "CCID", "CardCrypto",
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .testTarget(
            name: "CardctlTests",
            dependencies: [
                "cardctl", "cardd", "CardSimulator", "PostgresTestSupport", "CardFlowSimulatorUFR",
                "CardSimulatorCards",
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .testTarget(name: "CardCryptoTests", dependencies: ["CardCrypto"]),
        .testTarget(
            name: "CardFlowUFRTests",
            dependencies: [
                "CardFlowUFR", "CardFlowSimulatorUFR", "CardFlow", "CardSimulatorCards", "DESFire", "CardCrypto",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "CardBenchTests",
            dependencies: [
                "CardBench", "CardFlow", "CardFlowCCID", "CCID", "CardSimulator", "CardSimulatorReaders",
                "DESFire", "TONCard", "NDEF", "ISO15693", "CardCrypto",
                .product(name: "Histogram", package: "hdrhistogram-swift", condition: bench),
            ]),
        .testTarget(
            name: "VPCDTests",
            dependencies: [
                "VPCD", "CardSimulator", "CardFlow", "CardFlowVPCD",
                .product(name: "NIOCore", package: "swift-nio", condition: networkReaders),
                .product(name: "NIOPosix", package: "swift-nio", condition: networkReaders),
                .product(name: "NIOEmbedded", package: "swift-nio", condition: networkReaders),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "NDEFTests", dependencies: ["CardSimulatorTestSupport", "NDEF", "CardFlow", "CardSimulator"],
            exclude: ["ndeflib_crosscheck.py"]),
        .testTarget(
            name: "ISO15693Tests", dependencies: ["CardSimulatorTestSupport", "ISO15693", "CardFlow", "CardSimulator"]),
        .testTarget(
            name: "StorageCardsTests",
            dependencies: [
                "CardSimulatorCards",
                "StorageCards", "NDEF", "CardFlow", "CardSimulator", .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "DESFireTests",
            dependencies: ["CardSimulatorTestSupport", "DESFire", "CardFlow", "CardSimulator", "CardCrypto"]),
        .testTarget(
            name: "TONCardTests",
            dependencies: [
                "CardSimulatorTestSupport",
                "TONCard", "CardFlow", "CardSimulator", "CardCrypto", .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .testTarget(
            name: "RelayTests",
            dependencies: [
                "CardSimulatorTestSupport",
                "Relay", "CardFlow", "CardSimulator", "DESFire", "CardCrypto", "cardctl", "CardDaemon",
                "CardDaemonControl", "CardDaemonFlows", "DaemonTestSupport",
                .product(name: "NIOCore", package: "swift-nio", condition: networkReaders),
                .product(name: "NIOPosix", package: "swift-nio", condition: networkReaders),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: networkReaders),
                .product(name: "NIOWebSocket", package: "swift-nio", condition: networkReaders),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: relay),
            ]),
        // The in-process daemon harness the daemon's and the relay's tests share.
        .target(
            name: "DaemonTestSupport",
            dependencies: [
                "CardDaemon", "CardDaemonControl", "CardDaemonFlows", "CardSimulatorReaders", "CardFlow",
                "CardFlowVPCD",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/DaemonTestSupport"),
        .testTarget(
            name: "CardDaemonTests",
            dependencies: [
                "CardDaemon", "CardDaemonControl", "CardDaemonSimulation", "CardSimulatorReaders",
                "CardFlow", "CardFlowCCID", "CardFlowPCSC", "CardFlowVPCD", "VPCD", "CardSimulator", "TONCard",
                "DESFire",
                "DaemonTestSupport", "StorageCards", "NDEF", "ISO15693", "CardFleet", "CCID", "CardDaemonFlows",
                "CardFlowUFR", "CardFlowSimulatorUFR", "CardSimulatorCards",
                .product(name: "GRDB", package: "GRDB.swift", condition: daemon),
                .product(name: "NIOEmbedded", package: "swift-nio", condition: networkReaders),
            ]),
        // Runs a client against many seeded hostile cards (HostileCampaign): for tests, not a product.
        .target(
            name: "CardSimulatorTestSupport", dependencies: ["CardSimulatorCards", "CardFlow"],
            path: "Tests/CardSimulatorTestSupport"),
        // A throwaway PostgreSQL per test (Scripts/postgres-throwaway.sh), for the fleet's tests.
        .target(name: "PostgresTestSupport", path: "Tests/PostgresTestSupport"),
        .testTarget(
            name: "FleetTests",
            dependencies: [
                "CardFleet", "CardFleetPostgres", "CardDaemon", "CardDaemonControl", "CardSimulatorReaders", "CardFlow",
                "CardSimulator", "DESFire", "DaemonTestSupport", "PostgresTestSupport", "CardCrypto", "CardDaemonFlows",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "PCSCTests",
            dependencies: [
                "PCSC", "CardFlow", "CardFlowPCSC", "CardSimulator", .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "USBIntegrationTests",
            dependencies: [
                "CCID", "CardFlow", "CardFlowCCID", "CardSimulator", "CardSimulatorUSB", "CLibUSB", "CardDaemon",
                "CardDaemonControl", "CardDaemonFlows",
            ]),
    ],
    swiftLanguageModes: [.v6]
)
