import ArgumentParser
import CardFlow
import CardFlowNDEF
import CardFlowStorageCards
import Foundation

/// `cardctl felica poll|read|write|ndef`: FeliCa (NFC-F) cards through the reader's raw-frame
/// pass-through; the Lite / Lite-S memory map and NDEF on Type 3 tags.
struct FeliCaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "felica",
        abstract: "FeliCa (NFC-F): Polling, blocks without encryption, NDEF on Type 3 tags.",
        discussion: """
            Commands go as FeliCa frames through the reader's pass-through (the route comes from the reader's USB \
            IDs unless --variant names the family). Blocks are numbered in decimal or hex (0x88). FeliCa Lite-S: \
            S_PAD0-13 are blocks 0-13, REG 14, MC (memory configuration) 0x88. Exit code 1 when the card \
            refuses (its status flags are printed), 2 for bad input (nothing is sent).
            """,
        subcommands: [Poll.self, Read.self, Write.self, NDEFSubcommand.self])

    /// `--variant` for every subcommand.
    struct ReaderOptions: ParsableArguments {
        @Option(help: "The reader dialect: acs, identiv, omnikey or genericPart3 (default: from the reader's USB IDs).")
        var variant: StorageReaderFamily?

        func readerVariant(for reader: ReaderInfo) -> StorageReaderVariant {
            .lookup(family: variant, vendorID: reader.vendorID, productID: reader.productID)
        }
    }

    struct Poll: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "poll", abstract: "Polling: IDm, PMm, the product and the system code that answered.")
        @OptionGroup(title: "Global Options") var global: GlobalOptions
        @OptionGroup var reader: ReaderOptions
        @Option(
            name: .customLong("system-code"),
            help: ArgumentHelp("The system code to poll (hex, FF bytes are wildcards).", valueName: "HEX"))
        var systemCode: String = "FFFF"

        func validate() throws { _ = try code() }

        func code() throws -> UInt16 {
            guard let bytes = try? [UInt8](hex: systemCode), bytes.count == 2 else {
                throw ValidationError("--system-code is two bytes of hex, not \(systemCode)")
            }
            return UInt16(bytes[0]) << 8 | UInt16(bytes[1])
        }

        func run() async throws {
            let systemCode = try code()
            let (answer, product) = try await withFeliCa(global, reader) { card in
                let answer = try await card.poll(systemCode: systemCode, requestCode: .systemCode)
                return (answer, await card.product)
            }
            let system = answer.systemCode.map { FeliCaFrame.bigEndian($0).hexString } ?? ""
            if global.json {
                try Output.json(
                    FeliCaOutput.Polled(
                        idm: answer.idm.hexString, pmm: answer.pmm.hexString, product: "\(product)", systemCode: system)
                )
            } else {
                Output.standardOutput("\(product), IDm \(answer.idm.hexString), PMm \(answer.pmm.hexString)")
                if !system.isEmpty { Output.standardOutput("system code \(system)") }
            }
        }
    }

    struct Read: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "read", abstract: "Read blocks without encryption (hex, 16 bytes a block).")
        @OptionGroup(title: "Global Options") var global: GlobalOptions
        @OptionGroup var reader: ReaderOptions
        @Option(help: "First block (decimal or 0x hex).") var block: FeliCaBlockNumber
        @Option(help: "Number of blocks.") var count: Int = 1
        @Option(help: ArgumentHelp("Service code (hex; default 000B, read-only without key).", valueName: "HEX"))
        var service: String = "000B"

        func validate() throws {
            guard (1...64).contains(count) else { throw ValidationError("--count \(count) is outside 1...64") }
            guard block.value + count - 1 <= 0xFFFF else { throw ValidationError("the blocks run past FFFF") }
            _ = try FeliCaCommand.service(service)
        }

        func run() async throws {
            let service = try FeliCaCommand.service(service)
            let blocks = Array(block.value..<block.value + count)
            let data = try await withFeliCa(global, reader) { card in
                try await card.read(blocks: blocks, service: service)
            }
            if global.json {
                try Output.json(FeliCaOutput.Blocks(block: block.value, count: count, data: data.hexString))
            } else {
                for (index, number) in blocks.enumerated() {
                    let bytes = Array(data[index * 16..<index * 16 + 16])
                    Output.standardOutput(String(format: "%04X: ", number) + bytes.spacedHexString)
                }
            }
        }
    }

    struct Write: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "write", abstract: "Write whole blocks without encryption, one command per block.")
        @OptionGroup(title: "Global Options") var global: GlobalOptions
        @OptionGroup var reader: ReaderOptions
        @Option(help: "First block (decimal or 0x hex).") var block: FeliCaBlockNumber
        @Option(help: "Data in hex, a whole number of 16-byte blocks.") var data: String
        @Option(help: ArgumentHelp("Service code (hex; default 0009, read/write without key).", valueName: "HEX"))
        var service: String = "0009"

        func validate() throws {
            let bytes = try bytes()
            guard block.value + bytes.count / 16 - 1 <= 0xFFFF else {
                throw ValidationError("the blocks run past FFFF")
            }
            _ = try FeliCaCommand.service(service)
        }

        func bytes() throws -> [UInt8] {
            guard let bytes = try? [UInt8](hex: data) else { throw ValidationError("--data is not hex") }
            guard !bytes.isEmpty, bytes.count % 16 == 0 else {
                throw ValidationError("--data has \(bytes.count) bytes, not a whole number of 16-byte blocks")
            }
            return bytes
        }

        func run() async throws {
            let bytes = try bytes()
            let service = try FeliCaCommand.service(service)
            let first = block.value
            try await withFeliCa(global, reader) { card in
                for index in 0..<bytes.count / 16 {
                    try await card.write(
                        block: first + index, Array(bytes[index * 16..<index * 16 + 16]), service: service)
                }
            }
            if global.json { try Output.json(BlocksWrittenOutput(blocksWritten: bytes.count / 16)) }
        }
    }

    /// `cardctl felica ndef read|write|format`.
    struct NDEFSubcommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ndef", abstract: "NDEF on Type 3 tags: format a FeliCa Lite / Lite-S, write and read.",
            subcommands: [Read.self, Write.self, Format.self])

        struct Read: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "read", abstract: "Read the NDEF message.")
            @OptionGroup(title: "Global Options") var global: GlobalOptions
            @OptionGroup var reader: ReaderOptions

            func run() async throws {
                let bytes = try await withFeliCa(global, reader) { card in try await card.readNDEFMessage() }
                try NDEFCommand.printTagMessage(bytes, mode: .strict, json: global.json)
            }
        }

        struct Write: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "write",
                abstract: "Write a one-record NDEF message (the tag must be NDEF-formatted: `felica ndef format`).")
            @OptionGroup(title: "Global Options") var global: GlobalOptions
            @OptionGroup var reader: ReaderOptions
            @OptionGroup var record: NDEFCommand.RecordOptions

            func run() async throws {
                let encoded = try NDEFMessage([try record.record()]).encoded()
                try await withFeliCa(global, reader) { card in try await card.writeNDEFMessage(encoded) }
                if global.json { try Output.json(NDEFOutput.MessageWritten(bytesWritten: encoded.count)) }
            }
        }

        struct Format: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "format",
                abstract: "Format a FeliCa Lite / Lite-S for NDEF (turns NDEF on in MC, writes the attribute block).",
                discussion: "Any message on the tag is gone afterwards.")
            @OptionGroup(title: "Global Options") var global: GlobalOptions
            @OptionGroup var reader: ReaderOptions

            func run() async throws {
                let attributes = try await withFeliCa(global, reader) { card in try await card.formatNDEF() }
                if global.json {
                    try Output.json(
                        FeliCaOutput.NDEFFormatted(
                            capacity: attributes.capacity, maximumBlocks: attributes.maximumBlocks))
                } else {
                    Output.standardOutput(
                        "formatted: \(attributes.maximumBlocks) blocks (\(attributes.capacity) bytes) for NDEF")
                }
            }
        }
    }

    static func service(_ text: String) throws -> FeliCaServiceCode {
        guard let bytes = try? [UInt8](hex: text), bytes.count == 2 else {
            throw ValidationError("a service code is two bytes of hex (000B), not \(text)")
        }
        return FeliCaServiceCode(rawValue: UInt16(bytes[0]) << 8 | UInt16(bytes[1]))
    }
}

/// A FeliCa block number on the command line: decimal, or hex with `0x`.
struct FeliCaBlockNumber: ExpressibleByArgument, Sendable {
    let value: Int

    init?(argument: String) {
        let parsed =
            argument.lowercased().hasPrefix("0x") ? Int(argument.dropFirst(2), radix: 16) : Int(argument, radix: 10)
        guard let parsed, (0...0xFFFF).contains(parsed) else { return nil }
        value = parsed
    }
}

/// Runs `body` with a FeliCa client on a session of the primary reader.
private func withFeliCa<T: Sendable>(
    _ global: GlobalOptions, _ reader: FeliCaCommand.ReaderOptions,
    _ body: @escaping @Sendable (FeliCaClient) async throws -> T
) async throws -> T {
    let logger = CommandLogging.logger(trace: global.trace)
    return try await ReaderConnection.withPrimarySession(global) { session in
        let card = try await FeliCaClient.open(
            on: session, variant: reader.readerVariant(for: session.reader.info), logger: logger)
        let value = try await body(card)
        try await card.finish()
        return value
    }
}
