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
        .library(name: "CardFlowCCIDProtocol", targets: ["CardFlowCCIDProtocol"]),
        .library(name: "CardFlowCCID", targets: ["CardFlowCCID"]),
        .library(name: "CardFlowVPCD", targets: ["CardFlowVPCD"]),
        .library(name: "CardFlowPCSC", targets: ["CardFlowPCSC"]),
        .library(name: "CardFlowUFR", targets: ["CardFlowUFR"]),
        .library(name: "CardFlowSimulatorUFR", targets: ["CardFlowSimulatorUFR"]),
        .library(name: "CardFlowSimulatorCards", targets: ["CardFlowSimulatorCards"]),
        .library(name: "CardFlowSimulator", targets: ["CardFlowSimulator"]),
        .library(name: "CardFlowSimulatorUSB", targets: ["CardFlowSimulatorUSB"]),
        .library(name: "CardFlowDESFire", targets: ["CardFlowDESFire"]),
        .library(name: "CardFlowTONCard", targets: ["CardFlowTONCard"]),
        .library(name: "CardFlowDaemon", targets: ["CardFlowDaemon"]),
        .library(name: "CardFlowDaemonControl", targets: ["CardFlowDaemonControl"]),
        .library(name: "CardFlowDaemonFlows", targets: ["CardFlowDaemonFlows"]),
        .library(name: "CardFlowDaemonSimulation", targets: ["CardFlowDaemonSimulation"]),
        .library(name: "CardFlowFleet", targets: ["CardFlowFleet"]),
        .library(name: "CardFlowFleetPostgres", targets: ["CardFlowFleetPostgres"]),
        .library(name: "CardFlowBench", targets: ["CardFlowBench"]),
        .library(name: "CardFlowSimulatorReaders", targets: ["CardFlowSimulatorReaders"]),
        .library(name: "CardFlowTranscripts", targets: ["CardFlowTranscripts"]),
        .library(name: "CardFlowRelay", targets: ["CardFlowRelay"]),
        .library(name: "CardFlowPCSCLite", targets: ["CardFlowPCSCLite"]),
        // For the fuzz package (Fuzz/), which reaches the NDEF and ISO 15693 decoders.
        .library(name: "CardFlowNDEF", targets: ["CardFlowNDEF"]),
        .library(name: "CardFlowISO15693", targets: ["CardFlowISO15693"]),
        .library(name: "CardFlowStorageCards", targets: ["CardFlowStorageCards"]),
        .library(name: "CardFlowVPCDProtocol", targets: ["CardFlowVPCDProtocol"]),
        // For the benchmark package (Benchmarks/): the set-ups its StackBench shares with cardflow-bench.
        .library(name: "CardFlowBenchSupport", targets: ["CardFlowBenchSupport"]),
        .executable(name: "cardctl", targets: ["cardctl"]),
        .executable(name: "cardd", targets: ["cardd"]),
        .executable(name: "vpcdtool", targets: ["vpcdtool"]),
    ],
    traits: [
        .trait(
            name: "NetworkReaders",
            description: "vsmartcard's vpcd protocol: the CardFlowVPCDProtocol and CardFlowVPCD targets (SwiftNIO)."),
        .trait(name: "Relay", description: "The remote APDU relay over WebSocket (swift-websocket, NIOSSL)."),
        .trait(
            name: "Daemon", description: "The cardd daemon library (GRDB, Prometheus, ServiceLifecycle, SwiftNIO).",
            enabledTraits: ["NetworkReaders", "Relay"]),
        .trait(
            name: "Fleet",
            description: "Many cardd hosts on one PostgreSQL: the CardFlowFleetPostgres target (postgres-nio)."),
        .trait(
            name: "Bench",
            description: "Measuring readers and cards for users: the CardFlowBench target (hdrhistogram-swift)."),
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
        .systemLibrary(name: "CCardFlowLibUSB", pkgConfig: "libusb-1.0", providers: [.apt(["libusb-1.0-0-dev"])]),
        // libftdi1: USB uFR readers through their FTDI chip in user space (CardFlowUFR's ufr:usb).
        .systemLibrary(name: "CCardFlowLibFTDI", pkgConfig: "libftdi1", providers: [.apt(["libftdi1-dev"])]),
        .systemLibrary(name: "CCardFlowLibCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CCardFlowUMockdev", pkgConfig: "umockdev-1.0", providers: [.apt(["libumockdev-dev"])]),
        .systemLibrary(name: "CCardFlowPCSCLite", pkgConfig: "libpcsclite", providers: [.apt(["libpcsclite-dev"])]),
        // PC/SC backend over libpcsclite, for hosts where pcscd owns the readers. Standalone: no CardFlow import yet.
        .target(
            name: "CardFlowPCSCLite",
            dependencies: ["CCardFlowPCSCLite", "CardFlowHex", .product(name: "Logging", package: "swift-log")]),
        // Bytes as hex text for logs and descriptions: the one implementation below CardFlow's public `hexString`.
        .target(name: "CardFlowHex"),
        // First-come, first-served admission for actors' exclusive sections (CCID slots, CardFlow readers).
        .target(name: "CardFlowAsyncAdmission"),
        // USB CCID driver: message codec, class descriptor, exchange levels, T=1, transports.
        .target(
            name: "CardFlowCCIDProtocol",
            dependencies: [
                "CCardFlowLibUSB", "CardFlowAsyncAdmission", "CardFlowHex",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Core: APDUs, card channels, readers over any ReaderDriver backend, sessions, flows,
        // key store. Builds without libusb: the CCID backend is CardFlowCCID.
        .target(
            name: "CardFlow",
            dependencies: [
                "CardFlowAsyncAdmission", "CardFlowHex",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // The direct CCID driver as a CardFlow reader backend: ReaderDriver per slot, USB hotplug registry.
        .target(
            name: "CardFlowCCID",
            dependencies: [
                "CardFlow", "CardFlowCCIDProtocol",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // Simulated cards written from their specifications (ISO 7816, DESFire, TON, NDEF tags, ISO 15693,
        // NTAG, MIFARE Classic, FeliCa, hostile cards): no CCID, usable by any backend's simulated reader.
        .target(
            name: "CardFlowSimulatorCards",
            dependencies: [
                "CardFlow", "CardFlowCrypto", "CardFlowHex",
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        // The virtual CCID reader (the USB side of the protocol) that places the simulated cards.
        .target(
            name: "CardFlowSimulator",
            dependencies: [
                "CardFlowSimulatorCards", "CardFlow", "CardFlowCCIDProtocol", "CardFlowCCID", "CardFlowCrypto",
                "CardFlowHex",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Cryptographic primitives card protocols share (DESFire, TON): AES, CMAC, 3DES, CRCs.
        .target(
            name: "CardFlowCrypto",
            dependencies: [
                "CCardFlowLibCrypto",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // NFC Forum NDEF messages and records, and NDEF on NFC Forum tags (through CardFlow sessions).
        .target(name: "CardFlowNDEF", dependencies: ["CardFlow", "CardFlowISO15693"]),
        // ISO 15693 vicinity tags through CCID readers (PC/SC part 3 block access, FF C2 exchange).
        .target(name: "CardFlowISO15693", dependencies: ["CardFlow"]),
        // Storage cards through PC/SC part 3 pseudo-APDUs (MIFARE Classic: keys, blocks, value
        // blocks, MAD, NDEF), with the reader families' dialects; no CCID, no libusb.
        .target(
            name: "CardFlowStorageCards",
            dependencies: ["CardFlow", "CardFlowNDEF", .product(name: "Logging", package: "swift-log")]),
        // MIFARE DESFire EV1 client: ISO-wrapped native commands, authentication, secure messaging, flows.
        .target(
            name: "CardFlowDESFire",
            dependencies: [
                "CardFlow", "CardFlowCrypto", .product(name: "Logging", package: "swift-log"),
            ]),
        // TON Labs security card client (TonWalletApplet + CoinManager): operations, activation, HMAC, keychain.
        .target(
            name: "CardFlowTONCard",
            dependencies: [
                "CardFlow", "CardFlowCrypto",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // umockdev-based USB device emulation (C): presents a CCID reader, or an FTDI USB-serial
        // chip, to libusb programs.
        .target(name: "CardFlowCCIDEmulator", dependencies: ["CCardFlowUMockdev"]),
        // Exposes a simulated CCID reader, or a simulated uFR behind an emulated FTDI chip, as a USB
        // device through CardFlowCCIDEmulator.
        .target(
            name: "CardFlowSimulatorUSB",
            dependencies: [
                "CardFlowSimulator", "CardFlowCCIDProtocol", "CardFlowCCIDEmulator", "CardFlowSimulatorUFR",
                "CardFlowTranscripts", .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The cardd daemon's parts: configuration, reader supervision, job log, control socket, metrics.
        // Its readers come from the reader sources and its flows from the flow kinds the program
        // injects: no backend and no card family is linked here.
        .target(
            name: "CardFlowDaemon",
            dependencies: [
                "CardFlow", "CardFlowDaemonControl", "CardFlowFleet", "CardFlowNIOSupport",
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
            name: "CardFlowDaemonFlows",
            dependencies: [
                "CardFlowDaemon", "CardFlowDaemonControl", "CardFlow", "CardFlowNDEF", "CardFlowISO15693",
                "CardFlowDESFire", "CardFlowTONCard", "CardFlowRelay",
                "CardFlowStorageCards", .product(name: "Logging", package: "swift-log"),
            ]),
        // cardd's control-socket protocol, client side and wire types: what cardctl links instead of CardFlowDaemon.
        .target(
            name: "CardFlowDaemonControl",
            dependencies: [
                "CardFlow",
                .product(name: "NIOCore", package: "swift-nio", condition: networkReaders),
                .product(name: "NIOPosix", package: "swift-nio", condition: networkReaders),
            ]),
        // The simulator as a reader source (`sim:` selectors).
        .target(
            name: "CardFlowSimulatorReaders",
            dependencies: [
                "CardFlowSimulator", "CardFlow", "CardFlowCCID", "CardFlowCCIDProtocol", "CardFlowTranscripts",
            ]),
        // Real readers' bytes: pcscd + libccid debug logs parsed, and replayed as a CCID reader.
        .target(
            name: "CardFlowTranscripts",
            dependencies: [
                "CardFlowCCIDProtocol", "CardFlow",
                .product(name: "Logging", package: "swift-log"),
            ]),
        // cardd --simulate: the schedule that moves simulated cards, its faults and report, the demo rules.
        .target(
            name: "CardFlowDaemonSimulation",
            dependencies: [
                "CardFlowDaemon", "CardFlowDaemonControl", "CardFlowDaemonFlows", "CardFlowSimulator", "CardFlow",
                "CardFlowTONCard",
                .product(name: "Logging", package: "swift-log"),
            ]),
        // The fleet's model: records, claims, completions, hosts, the import file format, and the
        // queue a cardd host claims records from. CardFlow only (for its error categories).
        .target(name: "CardFlowFleet", dependencies: ["CardFlow"]),
        // The fleet queue on PostgreSQL: claims with leases and fencing tokens, spoilage, hosts,
        // LISTEN/NOTIFY. What cardd and cardctl's `fleet` commands use.
        .target(
            name: "CardFlowFleetPostgres",
            dependencies: [
                "CardFlowFleet", "CardFlowHex",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: fleet),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: fleet),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // Measuring readers and cards for users (`cardctl bench`): closed-loop latency with HdrHistogram,
        // size sweeps with a fitted cost model, per-operation timings, comparisons, text and HTML reports.
        .target(
            name: "CardFlowBench",
            dependencies: [
                "CardFlow", "CardFlowCCID", "CardFlowCCIDProtocol", "CardFlowDESFire", "CardFlowTONCard",
                "CardFlowNDEF", "CardFlowISO15693", "CardFlowCrypto",
                "CardFlowHex",
                .product(name: "Histogram", package: "hdrhistogram-swift", condition: bench),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // Remote APDU relay: a WebSocket service drives the card through us (gate, recovery, limits).
        .target(
            name: "CardFlowRelay",
            dependencies: [
                "CardFlow",
                .product(name: "WSClient", package: "swift-websocket", condition: relay),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: relay),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: relay),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // Network readers over vsmartcard's vpcd protocol (TCP), both roles; nothing from CardFlow.
        // What the NIO servers (vpcd listener, cardd's control socket and metrics port) share:
        // the registry that closes connections accepted while a server stops.
        .target(
            name: "CardFlowNIOSupport",
            dependencies: [.product(name: "NIOCore", package: "swift-nio", condition: networkReaders)]),
        .target(
            name: "CardFlowVPCDProtocol",
            dependencies: [
                "CardFlowHex", "CardFlowNIOSupport",
                .product(name: "NIOCore", package: "swift-nio", condition: networkReaders),
                .product(name: "NIOPosix", package: "swift-nio", condition: networkReaders),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // Readers pcscd owns as a CardFlow reader backend.
        .target(
            name: "CardFlowPCSC",
            dependencies: ["CardFlow", "CardFlowPCSCLite", .product(name: "Logging", package: "swift-log")]),
        // Network readers (vpcd listener) as a CardFlow reader backend.
        .target(name: "CardFlowVPCD", dependencies: ["CardFlow", "CardFlowVPCDProtocol"]),
        // Digital Logic uFR readers (uFR COM protocol over TCP, UDP, a serial device or libftdi1) as a CardFlow
        // reader backend.
        .target(
            name: "CardFlowUFR",
            dependencies: [
                "CardFlow", "CardFlowAsyncAdmission", "CCardFlowLibFTDI",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio", condition: networkReaders),
                .product(name: "NIOPosix", package: "swift-nio", condition: networkReaders),
            ]),
        // A simulated uFR Nano Online (TCP and UDP on loopback) written from the protocol documents,
        // holding any simulated card; hostile modes for the backend's tests.
        .target(
            name: "CardFlowSimulatorUFR",
            dependencies: [
                "CardFlowSimulatorCards", "CardFlow", "CardFlowDESFire",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio", condition: networkReaders),
                .product(name: "NIOPosix", package: "swift-nio", condition: networkReaders),
            ]),
        // vpcd companion tool: reader side for vicc, card side for pcscd, loopback rate (Scripts/vpcd-check.sh).
        .executableTarget(
            name: "vpcdtool",
            dependencies: [
                "CardFlowVPCDProtocol", "CardFlowSimulator", "CardFlow", "CardFlowVPCD",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: commandLineTools),
                .product(name: "Logging", package: "swift-log"),
            ], path: "Examples/vpcdtool"),
        // Benchmarks/pcsc-backend/run.sh's Swift side: a PCSCCardConnection transmit loop.
        .executableTarget(
            name: "pcsc-transmit-loop",
            dependencies: [
                "CardFlowPCSCLite", "CardFlow", "CardFlowPCSC", .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/pcsc-backend/TransmitLoop"
        ),
        // Benchmark set-ups (a fixed-answer card, driver and reader makers, DESFire and TON cards),
        // shared by cardflow-bench and the benchmark package's StackBench.
        .target(
            name: "CardFlowBenchSupport",
            dependencies: [
                "CardFlow", "CardFlowCCIDProtocol", "CardFlowCCID", "CardFlowSimulator", "CardFlowDESFire",
                "CardFlowTONCard", .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/Sources/BenchSupport"
        ),
        // Real-time measurements and the allocation-counting loops (Benchmarks/run,
        // Benchmarks/allocations/check.sh). In this package, not the benchmark one, so that CI's
        // allocation gate links it against the release modules Scripts/package.sh already built.
        .executableTarget(
            name: "cardflow-bench",
            dependencies: [
                "CardFlowBenchSupport", "CardFlow", "CardFlowCCIDProtocol", "CardFlowCCID", "CardFlowSimulator",
                "CardFlowDESFire",
            ],
            path: "Benchmarks/Sources/cardflow-bench"
        ),
        .executableTarget(
            name: "cardd",
            dependencies: [
                "CardFlowDaemon", "CardFlowDaemonControl", "CardFlowDaemonFlows", "CardFlowDaemonSimulation",
                "CardFlowSimulator",
                "CardFlowSimulatorReaders",
                "CardFlow", "CardFlowCCID", "CardFlowPCSC", "CardFlowVPCD", "CardFlowFleet", "CardFlowFleetPostgres",
                "CardFlowDESFire", "CardFlowISO15693", "CardFlowNDEF", "CardFlowTONCard", "CardFlowStorageCards",
                "CardFlowUFR",
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
                "CardFlow", "CardFlowCCIDProtocol", "CardFlowCCID", "CardFlowVPCD", "CardFlowVPCDProtocol",
                "CardFlowPCSC", "CardFlowPCSCLite", "CardFlowSimulator",
                "CardFlowSimulatorUSB", "CardFlowNDEF", "CardFlowISO15693", "CardFlowDESFire", "CardFlowTONCard",
                "CardFlowDaemonControl",
                "CardFlowSimulatorReaders", "CardFlowRelay", "CardFlowFleet", "CardFlowFleetPostgres", "CardFlowBench",
                "CardFlowStorageCards",
                "CardFlowUFR", "CardFlowSimulatorUFR", "CardFlowTranscripts",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: commandLineTools),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Examples/cardctl"
        ),
        .testTarget(
            name: "CardFlowTests",
            dependencies: [
                "CardFlowSimulatorTestSupport", "CardFlowAsyncAdmission",
                "CardFlow", "CardFlowCCID", "CardFlowSimulator", "CardFlowCCIDProtocol", "CardFlowHex",
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // The fuzz package's targets (Fuzz/Sources, less its three libFuzzer entry points)
        // compiled into one test module and run over their seed corpus and seeded mutants of it:
        // CI's fuzz smoke with no second, sanitizer-instrumented build of the whole package.
        // Coverage-guided runs: Scripts/fuzz.sh.
        .testTarget(
            name: "CardFlowFuzzSeedTests",
            dependencies: [
                "CardFlow", "CardFlowCCIDProtocol", "CardFlowSimulator", "CardFlowSimulatorCards", "CardFlowDaemon",
                "CardFlowDaemonFlows", "CardFlowDaemonControl", "CardFlowRelay", "CardFlowDESFire", "CardFlowNDEF",
                "CardFlowISO15693", "CardFlowUFR",
                .product(name: "NIOCore", package: "swift-nio", condition: networkReaders),
                .product(name: "NIOEmbedded", package: "swift-nio", condition: networkReaders),
            ],
            path: "Fuzz/Sources",
            exclude: ["CardFlowFuzz/FuzzEntry.swift", "CardFlowFuzzCCID", "CardFlowFuzzTags"],
            sources: ["FuzzSupport", "CCIDFuzzTargets", "TagFuzzTargets", "CardFlowFuzz", "SeedTests"]),
        .testTarget(
            name: "CardFlowCCIDProtocolTests",
            dependencies: ["CardFlowCCIDProtocol", "CardFlowSimulator", "CardFlow", "CardFlowCCID"]),
        .testTarget(
            name: "CardFlowTranscriptsTests",
            dependencies: [
                "CardFlowTranscripts", "CardFlowCCIDProtocol", "CardFlowCCID", "CardFlowSimulator",
                "CardFlowSimulatorReaders",
                // Real cards' recordings replayed against the card clients.
                "CardFlowSimulatorCards", "CardFlow", "CardFlowDESFire", "CardFlowStorageCards", "CardFlowISO15693",
                "CardFlowNDEF",
            ]),
        .testTarget(
            name: "CardFlowSimulatorTests",
            dependencies: [
                "CardFlowSimulatorCards",
                "CardFlowSimulator", "CardFlow", "CardFlowCCID", "CardFlowCCIDProtocol", "CardFlowCrypto",
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .testTarget(
            name: "CardctlTests",
            dependencies: [
                "cardctl", "cardd", "CardFlowSimulator", "CardFlowPostgresTestSupport", "CardFlowProcessTestSupport",
                "CardFlowSimulatorUFR", "CardFlowSimulatorCards",
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .testTarget(
            name: "CardFlowCryptoTests",
            dependencies: [
                // swift-crypto's own AES.CMAC: the independent side of AESCMAC's cross-check.
                "CardFlowCrypto", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ]),
        .testTarget(
            name: "CardFlowUFRTests",
            dependencies: [
                "CardFlowUFR", "CardFlowSimulatorUFR", "CardFlow", "CardFlowSimulatorCards", "CardFlowDESFire",
                "CardFlowCrypto", .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "CardFlowBenchTests",
            dependencies: [
                "CardFlowBench", "CardFlow", "CardFlowCCID", "CardFlowCCIDProtocol", "CardFlowSimulator",
                "CardFlowSimulatorReaders", "CardFlowProcessTestSupport",
                "CardFlowDESFire", "CardFlowTONCard", "CardFlowNDEF", "CardFlowISO15693", "CardFlowCrypto",
                .product(name: "Histogram", package: "hdrhistogram-swift", condition: bench),
            ]),
        .testTarget(
            name: "CardFlowVPCDTests",
            dependencies: [
                "CardFlowVPCDProtocol", "CardFlowSimulator", "CardFlow", "CardFlowVPCD", "CardFlowProcessTestSupport",
                .product(name: "NIOCore", package: "swift-nio", condition: networkReaders),
                .product(name: "NIOPosix", package: "swift-nio", condition: networkReaders),
                .product(name: "NIOEmbedded", package: "swift-nio", condition: networkReaders),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "CardFlowNDEFTests",
            dependencies: [
                "CardFlowSimulatorTestSupport", "CardFlowNDEF", "CardFlow", "CardFlowSimulator",
                "CardFlowProcessTestSupport",
            ],
            exclude: ["ndeflib_crosscheck.py"]),
        .testTarget(
            name: "CardFlowISO15693Tests",
            dependencies: [
                "CardFlowSimulatorTestSupport", "CardFlowISO15693", "CardFlow", "CardFlowSimulator",
                "CardFlowSimulatorCards",
            ]),
        .testTarget(
            name: "CardFlowStorageCardsTests",
            dependencies: [
                "CardFlowSimulatorCards",
                "CardFlowStorageCards", "CardFlowNDEF", "CardFlow", "CardFlowSimulator",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "CardFlowDESFireTests",
            dependencies: [
                "CardFlowSimulatorTestSupport", "CardFlowDESFire", "CardFlow", "CardFlowSimulator", "CardFlowCrypto",
            ]),
        .testTarget(
            name: "CardFlowTONCardTests",
            dependencies: [
                "CardFlowSimulatorTestSupport",
                "CardFlowTONCard", "CardFlow", "CardFlowSimulator", "CardFlowCrypto",
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .testTarget(
            name: "CardFlowRelayTests",
            dependencies: [
                "CardFlowSimulatorTestSupport",
                "CardFlowRelay", "CardFlow", "CardFlowSimulator", "CardFlowDESFire", "CardFlowCrypto", "cardctl",
                "CardFlowDaemon", "CardFlowProcessTestSupport",
                "CardFlowDaemonControl", "CardFlowDaemonFlows", "CardFlowDaemonTestSupport",
                .product(name: "NIOCore", package: "swift-nio", condition: networkReaders),
                .product(name: "NIOPosix", package: "swift-nio", condition: networkReaders),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: networkReaders),
                .product(name: "NIOWebSocket", package: "swift-nio", condition: networkReaders),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: relay),
            ]),
        // The in-process daemon harness the daemon's and the relay's tests share.
        .target(
            name: "CardFlowDaemonTestSupport",
            dependencies: [
                "CardFlowDaemon", "CardFlowDaemonControl", "CardFlowDaemonFlows", "CardFlowSimulatorReaders",
                "CardFlow",
                "CardFlowVPCD",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/CardFlowDaemonTestSupport"),
        .testTarget(
            name: "CardFlowDaemonTests",
            dependencies: [
                "CardFlowDaemon", "CardFlowDaemonControl", "CardFlowDaemonSimulation", "CardFlowSimulatorReaders",
                "CardFlow", "CardFlowCCID", "CardFlowPCSC", "CardFlowVPCD", "CardFlowVPCDProtocol", "CardFlowSimulator",
                "CardFlowTONCard",
                "CardFlowDESFire",
                "CardFlowDaemonTestSupport", "CardFlowStorageCards", "CardFlowNDEF", "CardFlowISO15693",
                "CardFlowFleet", "CardFlowCCIDProtocol", "CardFlowDaemonFlows",
                "CardFlowUFR", "CardFlowSimulatorUFR", "CardFlowSimulatorCards",
                .product(name: "GRDB", package: "GRDB.swift", condition: daemon),
                .product(name: "NIOEmbedded", package: "swift-nio", condition: networkReaders),
                .product(name: "NIOCore", package: "swift-nio", condition: networkReaders),
                .product(name: "NIOPosix", package: "swift-nio", condition: networkReaders),
            ]),
        // Runs a client against many seeded hostile cards (HostileCampaign): for tests, not a product.
        .target(
            name: "CardFlowSimulatorTestSupport", dependencies: ["CardFlowSimulatorCards", "CardFlow"],
            path: "Tests/CardFlowSimulatorTestSupport"),
        // Programs the tests start (cardctl, cardd, vicc, python3…) on posix_spawn, not Foundation's Process.
        .target(name: "CardFlowProcessTestSupport", path: "Tests/CardFlowProcessTestSupport"),
        // A throwaway PostgreSQL per test (Scripts/postgres-throwaway.sh), for the fleet's tests.
        .target(
            name: "CardFlowPostgresTestSupport", dependencies: ["CardFlowProcessTestSupport"],
            path: "Tests/CardFlowPostgresTestSupport"),
        .testTarget(
            name: "CardFlowFleetTests",
            dependencies: [
                "CardFlowFleet", "CardFlowFleetPostgres", "CardFlowDaemon", "CardFlowDaemonControl",
                "CardFlowSimulatorReaders", "CardFlow",
                "CardFlowSimulator", "CardFlowDESFire", "CardFlowDaemonTestSupport", "CardFlowPostgresTestSupport",
                "CardFlowCrypto", "CardFlowDaemonFlows",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "CardFlowPCSCTests",
            dependencies: [
                "CardFlowPCSCLite", "CardFlow", "CardFlowPCSC", "CardFlowSimulator",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "CardFlowUSBIntegrationTests",
            dependencies: [
                "CardFlowCCIDProtocol", "CardFlow", "CardFlowCCID", "CardFlowSimulator", "CardFlowSimulatorUSB",
                "CCardFlowLibUSB", "CardFlowDaemon", "CardFlowUFR", "CardFlowSimulatorUFR", "CardFlowSimulatorCards",
                "CardFlowDESFire", .product(name: "Logging", package: "swift-log"),
                "CardFlowDaemonControl", "CardFlowDaemonFlows", "CardFlowDaemonTestSupport",
                "CardFlowProcessTestSupport", "CardFlowTranscripts", "CardFlowSimulatorReaders",
            ]),
    ],
    swiftLanguageModes: [.v6]
)
