import ArgumentParser
import CardFlow
import CardFlowStorageCards

/// `cardctl classic trailer --sector N [--write …]`: read and decode a sector trailer, or write
/// new keys and access conditions (a trailer that would lock the sector for good needs --force).
struct ClassicTrailerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trailer",
        abstract: "Decode a sector trailer's access bits, or write new keys and access conditions.",
        discussion: """
            --access takes four access conditions as the NXP datasheet writes them, C1C2C3 for data blocks 0, 1, 2 \
            and the trailer: 000,000,000,001 is the transport configuration (FF 07 80). A trailer that leaves no key \
            able to write it again is refused unless --force.
            """)
    @OptionGroup(title: "Global Options") var global: GlobalOptions
    @OptionGroup var keys: ClassicKeyOptions
    @Option(help: "The sector.") var sector: Int
    @Flag(help: "Write a new trailer (needs --new-key-a, --new-key-b and --access).") var write = false
    @Option(name: .customLong("new-key-a"), help: ArgumentHelp("Key A to write, hex.", valueName: "HEX"))
    var newKeyA: String?
    @Option(name: .customLong("new-key-b"), help: ArgumentHelp("Key B to write, hex.", valueName: "HEX"))
    var newKeyB: String?
    @Option(help: ArgumentHelp("Access conditions C1C2C3 ×4: data blocks 0,1,2 and the trailer.", valueName: "BITS"))
    var access: String?
    @Option(name: .customLong("gpb"), help: ArgumentHelp("General purpose byte, hex (default 69).", valueName: "HEX"))
    var generalPurposeByte: String = "69"
    @Flag(help: "Write a trailer even though no key could ever write it again.") var force = false

    func validate() throws {
        guard sector >= 0 else { throw ValidationError("--sector \(sector) is negative") }
        if write {
            guard newKeyA != nil, newKeyB != nil, access != nil else {
                throw ValidationError("--write needs --new-key-a, --new-key-b and --access")
            }
        } else if newKeyA != nil || newKeyB != nil || access != nil || force {
            throw ValidationError("--new-key-a, --new-key-b, --access and --force go with --write")
        }
    }

    /// Parses `000,000,000,001` (or `0,0,0,1` as numbers 0…7) into access bits.
    static func accessBits(_ text: String) throws -> ClassicAccessBits {
        let parts = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 4 else {
            throw InputError(description: "--access needs four conditions (data blocks 0, 1, 2, trailer): \(text)")
        }
        let conditions = try parts.map { part throws -> ClassicAccessCondition in
            let value: UInt8?
            if part.count == 3, part.allSatisfy({ $0 == "0" || $0 == "1" }) {
                value = UInt8(part, radix: 2)
            } else {
                value = UInt8(part)
            }
            guard let value, let condition = ClassicAccessCondition(rawValue: value) else {
                throw InputError(description: "--access condition \"\(part)\" is not C1C2C3 bits (000…111) or 0…7")
            }
            return condition
        }
        return try ClassicAccessBits(dataBlocks: Array(conditions[0..<3]), trailer: conditions[3])
    }

    func run() async throws {
        var trailer: ClassicSectorTrailer?
        if write, let newKeyA, let newKeyB, let access {
            let gpb = try [UInt8](hex: generalPurposeByte)
            guard gpb.count == 1 else { throw InputError(description: "--gpb is one byte, not \(gpb.count)") }
            trailer = ClassicSectorTrailer(
                keyA: try ClassicKey([UInt8](hex: newKeyA)), accessBits: try Self.accessBits(access),
                generalPurposeByte: gpb[0], keyB: try ClassicKey([UInt8](hex: newKeyB)))
        }
        // A trailer that would lock the sector is refused before anything reaches the reader
        // (no LOAD KEYS, no authentication), unless --force.
        if let trailer, !force {
            do {
                try trailer.checkWritable()
            } catch {
                throw InputError(
                    description: "the trailer for sector \(sector) would leave no key able to write it again: "
                        + "add --force to write it anyway (nothing was sent)")
            }
        }
        let toWrite = trailer
        let bytes = try await withClassic(global, keys) { card, _ in
            guard (0..<card.layout.sectorCount).contains(sector) else {
                throw InputError(description: "--sector \(sector) is outside the card's \(card.layout.sectorCount)")
            }
            let block = card.layout.trailerBlock(ofSector: sector)
            try await keys.authenticate(card, block: block)
            if let toWrite { try await card.writeTrailer(toWrite, sector: sector, force: force) }
            return try await card.readBlock(block)
        }
        let decoded = try ClassicSectorTrailer(block: bytes)
        let permissions = decoded.accessBits.trailer.trailerPermissions
        if global.json {
            try Output.json(
                ClassicOutput.Trailer(
                    accessBits: decoded.accessBits.bytes.hexString,
                    conditions: (0..<4).map { Self.bits(decoded.accessBits.condition(at: $0)) },
                    gpb: [decoded.generalPurposeByte].hexString, keyBReadable: permissions.keyBReadable,
                    sector: sector, trailerWritable: permissions.trailerStaysWritable, written: toWrite != nil))
        } else {
            Output.standardOutput("sector \(sector) trailer \(bytes.spacedHexString)")
            Output.standardOutput("  \(decoded.accessBits)")
            for index in 0..<3 {
                let block = decoded.accessBits.condition(at: index).dataBlockPermissions
                Output.standardOutput(
                    "  data block \(index): read \(block.read), write \(block.write), increment \(block.increment), "
                        + "decrement/transfer/restore \(block.decrementTransferRestore)")
            }
            Output.standardOutput(
                "  trailer: key A written by \(permissions.writeKeyA); access bits read by \(permissions.readAccessBits), "
                    + "written by \(permissions.writeAccessBits); key B read by \(permissions.readKeyB), "
                    + "written by \(permissions.writeKeyB)")
        }
    }

    private static func bits(_ condition: ClassicAccessCondition) -> String {
        "\(condition.c1 ? 1 : 0)\(condition.c2 ? 1 : 0)\(condition.c3 ? 1 : 0)"
    }
}
