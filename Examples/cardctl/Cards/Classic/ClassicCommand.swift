import ArgumentParser
import CardFlow
import CardFlowStorageCards
import Foundation

/// `cardctl classic info|read|write|dump|value|trailer|mad|ndef`: MIFARE Classic through the
/// reader's PC/SC part 3 storage-card commands (Crypto1 runs in the reader).
struct ClassicCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "classic",
        abstract: "MIFARE Classic 1K/4K/Mini: blocks, value blocks, sector trailers, MAD and NDEF.",
        discussion: """
            Keys are loaded into the reader's key slot (--slot) and each sector is authenticated before it is \
            read or written. The reader family's dialect (ACS, Identiv/SCM, HID OMNIKEY, generic PC/SC part 3) \
            comes from the reader's USB IDs unless --variant names it. Exit code 1 when the card refuses (wrong \
            key or key slot, access bits), 2 for bad input (nothing is sent).
            """,
        subcommands: [
            Info.self, Read.self, Write.self, Dump.self, ClassicValueCommand.self, ClassicTrailerCommand.self,
            ClassicMADCommand.self, ClassicNDEFCommand.self,
        ])

    struct Info: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "info", abstract: "Card kind, UID, sectors and the reader dialect used.")
        @OptionGroup(title: "Global Options") var global: GlobalOptions
        @OptionGroup var keys: ClassicKeyOptions

        func run() async throws {
            let (kind, uid, layout, variant) = try await withClassic(global, keys) { card, session in
                let uid = try await StorageCardUID.read(from: session)
                return (
                    StorageCardKind(atr: await session.identity.atr)?.description ?? "MIFARE Classic", uid,
                    card.layout, card.variant
                )
            }
            if global.json {
                try Output.json(
                    ClassicOutput.Info(
                        blocks: layout.blockCount, kind: kind, readerFamily: variant.family.rawValue,
                        sectors: layout.sectorCount, uid: uid.hexString))
            } else {
                Output.standardOutput(
                    "\(kind), UID \(uid.hexString), \(layout.sectorCount) sectors, \(layout.blockCount) blocks; "
                        + "reader dialect \(variant)")
            }
        }
    }

    struct Read: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "read", abstract: "Read blocks (hex), authenticating each sector with the key.")
        @OptionGroup(title: "Global Options") var global: GlobalOptions
        @OptionGroup var keys: ClassicKeyOptions
        @Option(help: "First block.") var block: Int
        @Option(help: "Number of blocks.") var count: Int = 1

        func validate() throws {
            guard block >= 0 else { throw ValidationError("--block \(block) is negative") }
            guard (1...256).contains(count) else { throw ValidationError("--count \(count) is outside 1...256") }
        }

        func run() async throws {
            let blocks = try await withClassic(global, keys) { card, _ in
                let last = block + count - 1
                guard last < card.layout.blockCount else {
                    throw StorageCardError.blockOutOfRange(block: last, blockCount: card.layout.blockCount)
                }
                var blocks: [(Int, [UInt8])] = []
                for number in block...last {
                    try await keys.authenticate(card, block: number)
                    blocks.append((number, try await card.readBlock(number)))
                }
                return blocks
            }
            ClassicOutput.blocks(blocks, json: global.json)
        }
    }

    struct Write: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "write",
            abstract: "Write whole 16-byte data blocks (not block 0, not trailers: see `classic trailer`).")
        @OptionGroup(title: "Global Options") var global: GlobalOptions
        @OptionGroup var keys: ClassicKeyOptions
        @Option(help: "First block.") var block: Int
        @Option(help: "Data in hex, a whole number of 16-byte blocks.") var data: String

        func validate() throws {
            guard block >= 0 else { throw ValidationError("--block \(block) is negative") }
        }

        func run() async throws {
            let bytes = try [UInt8](hex: data)
            guard !bytes.isEmpty, bytes.count % 16 == 0 else {
                throw InputError(description: "--data is \(bytes.count) bytes, not a whole number of 16-byte blocks")
            }
            let written = try await withClassic(global, keys) { card, _ in
                let blocks = stride(from: 0, to: bytes.count, by: 16).enumerated().map { index, offset in
                    (block + index, Array(bytes[offset..<offset + 16]))
                }
                // Every target is checked before the first write, so a refused block leaves the card untouched.
                for (number, _) in blocks { try ClassicInfo.checkPlainWritable(number, layout: card.layout) }
                for (number, content) in blocks {
                    try await keys.authenticate(card, block: number)
                    try await card.writeBlock(number, data: content)
                }
                return blocks.count
            }
            if global.json { try Output.json(BlocksWrittenOutput(blocksWritten: written)) }
        }
    }

    struct Dump: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "dump",
            abstract: "Read every sector the key opens; sectors it does not open are reported, not fatal.")
        @OptionGroup(title: "Global Options") var global: GlobalOptions
        @OptionGroup var keys: ClassicKeyOptions

        func run() async throws {
            let sectors = try await withClassic(global, keys) { card, session in
                var sectors: [ClassicOutput.Sector] = []
                for sector in 0..<card.layout.sectorCount {
                    do {
                        try await keys.authenticate(card, block: card.layout.firstBlock(ofSector: sector))
                        var blocks: [(Int, [UInt8])] = []
                        let first = card.layout.firstBlock(ofSector: sector)
                        for number in first...card.layout.trailerBlock(ofSector: sector) {
                            blocks.append((number, try await card.readBlock(number)))
                        }
                        sectors.append(.init(sector: sector, blocks: blocks, error: nil))
                    } catch let error as StorageCardError {
                        switch error {
                        case .authenticationFailed, .operationRefused:
                            // The card halted: wake it for the next sector.
                            sectors.append(.init(sector: sector, blocks: [], error: error.description))
                            try await session.reconnect()
                        default: throw error
                        }
                    }
                }
                return sectors
            }
            ClassicOutput.sectors(sectors, json: global.json)
        }
    }
}

/// The key, key type, reader slot and dialect every `classic` subcommand takes.
struct ClassicKeyOptions: ParsableArguments {
    @Option(
        name: .customLong("key"),
        help: ArgumentHelp("The 6-byte key in hex (default: the transport key FFFFFFFFFFFF).", valueName: "HEX"))
    var keyHex: String?
    @Option(name: .customLong("key-type"), help: "Authenticate with key a or b.") var keyType: ClassicKeyTypeArgument =
        .a
    @Option(help: "The reader's key slot (ACS 0-1, OMNIKEY 0; Identiv/SCM readers ignore it).") var slot: UInt8 = 0
    @Option(help: "The reader dialect: acs, identiv, omnikey or genericPart3 (default: from the reader's USB IDs).")
    var variant: StorageReaderFamily?

    /// The key given, or `fallback` (the transport key unless a command has its own default).
    func key(default fallback: ClassicKey = .transport) throws -> ClassicKey {
        guard let keyHex else { return fallback }
        return try ClassicKey([UInt8](hex: keyHex))
    }

    /// The dialect to speak on `reader`: the family named (the reader's own entry when it is of
    /// that family), else looked up from the reader's USB IDs.
    func readerVariant(for reader: ReaderInfo) -> StorageReaderVariant {
        .lookup(family: variant, vendorID: reader.vendorID, productID: reader.productID)
    }

    /// Authenticates `block`'s sector unless the client holds it already with the same key type.
    func authenticate(_ card: ClassicClient, block: Int, key fallback: ClassicKey = .transport) async throws {
        guard let sector = card.layout.sector(ofBlock: block) else {
            throw StorageCardError.blockOutOfRange(block: block, blockCount: card.layout.blockCount)
        }
        if let current = await card.authenticatedSector, current.sector == sector,
            current.keyType == keyType.keyType
        {
            return
        }
        try await card.authenticate(
            sector: sector, keyType: keyType.keyType, key: try key(default: fallback), slot: slot)
    }
}

/// `a` or `b` on the command line.
enum ClassicKeyTypeArgument: String, ExpressibleByArgument, CaseIterable {
    case a, b
    var keyType: ClassicKeyType { self == .a ? .a : .b }
}

extension StorageReaderFamily: ExpressibleByArgument {}

/// Facts about the card outside the client's scope.
enum ClassicInfo {
    /// The plain write's own refusals (block 0, trailers, outside the card), checked up front.
    static func checkPlainWritable(_ block: Int, layout: ClassicCardLayout) throws {
        guard (0..<layout.blockCount).contains(block) else {
            throw StorageCardError.blockOutOfRange(block: block, blockCount: layout.blockCount)
        }
        if block == 0 { throw StorageCardError.plainWriteRefused(block: 0, reason: "the manufacturer block") }
        if layout.isTrailer(block) {
            throw StorageCardError.plainWriteRefused(block: block, reason: "a sector trailer: use `classic trailer`")
        }
    }
}

/// Runs `body` with a Classic client on a session of the primary reader.
func withClassic<T: Sendable>(
    _ global: GlobalOptions, _ keys: ClassicKeyOptions,
    _ body: @escaping @Sendable (ClassicClient, CardSession) async throws -> T
) async throws -> T {
    let logger = CommandLogging.logger(trace: global.trace)
    return try await ReaderConnection.withPrimarySession(global) { session in
        let variant = keys.readerVariant(for: session.reader.info)
        let card = try await ClassicClient.open(on: session, variant: variant, logger: logger)
        return try await body(card, session)
    }
}
