import CardFlow
import CardFlowStorageCards
import Foundation

/// What the `classic` commands print: `read` and `dump` as hex lines or JSON with trailers
/// decoded; the others' `--json` answers, one type each, keys in declaration order
/// (``KeyOrderedJSONEncoder``).
enum ClassicOutput {
    /// `classic info`.
    struct Info: Encodable {
        let blocks: Int
        let kind: String
        let readerFamily: String
        let sectors: Int
        let uid: String
    }

    /// `classic mad`: the directory's entries (free ones too), info byte and version.
    struct Directory: Encodable {
        struct Application: Encodable {
            let aid: String
            let sector: Int
        }

        let applications: [Application]
        let infoByte: String
        let version: Int
    }

    /// `classic trailer`: the trailer as read back, decoded.
    struct Trailer: Encodable {
        let accessBits: String
        /// C1C2C3 of blocks 0-2 and the trailer, as `"001"`.
        let conditions: [String]
        let gpb: String
        let keyBReadable: Bool
        let sector: Int
        let trailerWritable: Bool
        let written: Bool
    }

    /// `classic value`: the value in the block after the operation.
    struct Value: Encodable {
        let block: Int
        let value: Int32
    }

    /// `classic ndef format`.
    struct NDEFFormatted: Encodable {
        let formatted = true
        let sectors: Int
    }

    /// One sector of a dump: its blocks, or why the key did not open it.
    struct Sector: Sendable {
        let sector: Int
        let blocks: [(Int, [UInt8])]
        let error: String?
    }

    private struct BlockDocument: Encodable {
        let block: Int
        let data: String
        /// A trailer's access conditions (key A reads back as zeros).
        let access: String?
    }

    private struct SectorDocument: Encodable {
        let sector: Int
        let blocks: [BlockDocument]
        let error: String?
    }

    static func blocks(_ blocks: [(Int, [UInt8])], json: Bool) {
        if json {
            emit(["blocks": blocks.map(document)])
        } else {
            for (number, data) in blocks { Output.standardOutput(line(number, data)) }
        }
    }

    static func sectors(_ sectors: [Sector], json: Bool) {
        if json {
            emit([
                "sectors": sectors.map { sector in
                    SectorDocument(sector: sector.sector, blocks: sector.blocks.map(document), error: sector.error)
                }
            ])
            return
        }
        for sector in sectors {
            Output.standardOutput("sector \(sector.sector)" + (sector.error.map { ": \($0)" } ?? ""))
            for (number, data) in sector.blocks { Output.standardOutput("  " + line(number, data)) }
        }
    }

    private static func line(_ number: Int, _ data: [UInt8]) -> String {
        let padded = String(number).count < 3 ? String(repeating: " ", count: 3 - String(number).count) : ""
        return "block \(padded)\(number)  \(data.spacedHexString)" + (access(of: number, data).map { "  \($0)" } ?? "")
    }

    private static func document(_ block: (Int, [UInt8])) -> BlockDocument {
        BlockDocument(block: block.0, data: block.1.hexString, access: access(of: block.0, block.1))
    }

    /// A trailer's decoded access bits; nil for data blocks (and trailers whose bits are malformed).
    /// The 4K layout places trailers at the same block numbers as the Mini and 1K layouts below
    /// block 128.
    private static func access(of block: Int, _ data: [UInt8]) -> String? {
        guard ClassicCardLayout.fourK.isTrailer(block), let trailer = try? ClassicSectorTrailer(block: data) else {
            return nil
        }
        return trailer.accessBits.description
    }

    private static func emit<T: Encodable>(_ value: T) {
        try? Output.sortedJSON(value, compact: true, escapingSlashes: true)
    }
}
