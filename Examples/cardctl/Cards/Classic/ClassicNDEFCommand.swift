import ArgumentParser
import CardFlow
import CardFlowNDEF
import CardFlowStorageCards
import Foundation

/// `cardctl classic mad`: the MIFARE Application Directory (sector 0, and 16 on a 4K card).
struct ClassicMADCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mad", abstract: "Read the MIFARE Application Directory (public MAD key A unless --key).")
    @OptionGroup(title: "Global Options") var global: GlobalOptions
    @OptionGroup var keys: ClassicKeyOptions

    func run() async throws {
        let mad = try await withClassic(global, keys) { card, _ in
            try await card.readMAD(keyA: try keys.key(default: .madKeyA), slot: keys.slot)
        }
        let entries = mad.applications.enumerated().map { index, id in
            (sector: ClassicMAD.sector(ofEntry: index), id: id)
        }
        if global.json {
            try Output.json(
                ClassicOutput.Directory(
                    applications: entries.map {
                        .init(aid: $0.id.storedBytes.reversed().hexString, sector: $0.sector)
                    },
                    infoByte: [mad.infoByte].hexString, version: mad.version))
        } else {
            Output.standardOutput("MAD version \(mad.version), info byte \([mad.infoByte].hexString)")
            for entry in entries where entry.id != .free {
                Output.standardOutput("  sector \(entry.sector): \(entry.id)")
            }
        }
    }
}

/// `cardctl classic ndef read|write|format`: NDEF on MIFARE Classic (NFC Forum / AN1304 layout).
struct ClassicNDEFCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ndef",
        abstract: "NDEF on MIFARE Classic: format a card for NDEF, write and read the message.",
        subcommands: [Read.self, Write.self, Format.self])

    struct Read: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "read", abstract: "Read the NDEF message from the MAD's NDEF sectors.")
        @OptionGroup(title: "Global Options") var global: GlobalOptions
        @OptionGroup var keys: ClassicKeyOptions

        func run() async throws {
            let bytes = try await withClassic(global, keys) { card, _ in
                try await card.readNDEF(keyA: try keys.key(default: .ndefKeyA), slot: keys.slot)
            }
            try NDEFCommand.printTagMessage(bytes, mode: .strict, json: global.json)
        }
    }

    struct Write: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "write",
            abstract: "Write a one-record NDEF message (the card must be NDEF-formatted: `classic ndef format`).")
        @OptionGroup(title: "Global Options") var global: GlobalOptions
        @OptionGroup var keys: ClassicKeyOptions
        @OptionGroup var record: NDEFCommand.RecordOptions

        func run() async throws {
            let message = try NDEFMessage([try record.record()])
            let encoded = try message.encoded()
            try await withClassic(global, keys) { card, _ in
                try await card.writeNDEF(encoded, keyA: try keys.key(default: .ndefKeyA), slot: keys.slot)
            }
            if global.json { try Output.json(NDEFOutput.MessageWritten(bytesWritten: encoded.count)) }
        }
    }

    struct Format: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "format",
            abstract: "Format a transport-configuration card for NDEF: MAD, NDEF sectors, new key B everywhere.",
            discussion: """
                --key is the sectors' key A now (transport key by default); --new-key-b becomes every sector's key \
                B: keep it, it is the only key that can change the trailers afterwards.
                """)
        @OptionGroup(title: "Global Options") var global: GlobalOptions
        @OptionGroup var keys: ClassicKeyOptions
        @Option(name: .customLong("new-key-b"), help: ArgumentHelp("Key B for every sector, hex.", valueName: "HEX"))
        var newKeyB: String

        func run() async throws {
            let keyB = try ClassicKey([UInt8](hex: newKeyB))
            let sectors = try await withClassic(global, keys) { card, _ in
                try await card.formatForNDEF(currentKeyA: try keys.key(), keyB: keyB, slot: keys.slot)
                return card.layout.sectorCount
            }
            if global.json { try Output.json(ClassicOutput.NDEFFormatted(sectors: sectors)) }
        }
    }
}
