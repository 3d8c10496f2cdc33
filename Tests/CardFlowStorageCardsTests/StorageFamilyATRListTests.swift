import CardFlow
import CardFlowStorageCards
import Foundation
import Testing

/// The storage-card family detectors against pcsc-tools' smartcard_list.txt (Debian pcsc-tools,
/// maintained by Ludovic Rousseau, not by us): its rows for the PC/SC part 3 card-name table
/// (`3B 8F 80 01 80 4F 0C A0 00 00 03 06 .. 00 NN 00 00 00 00 ..`, "… (as per PCSC std part3)")
/// name each card; every row's ATR, with the standard byte and TCK filled in, must be detected
/// as the family its name says, and no other row as any of these families.
@Suite("storage-card families against pcsc-tools' ATR list")
struct StorageFamilyATRListTests {
    static let listPath = "/usr/share/pcsc/smartcard_list.txt"
    static let prefix: [UInt8] = [0x3B, 0x8F, 0x80, 0x01, 0x80, 0x4F, 0x0C, 0xA0, 0x00, 0x00, 0x03, 0x06]

    /// Fails on any command: these detectors decide from the ATR alone.
    struct NoProbes: CardChannel {
        struct Probed: Error {}
        func transmit(_ command: CommandAPDU) async throws -> ResponseAPDU { throw Probed() }
    }

    /// The card-name rows: (card name, the row's name text).
    static func cardNameRows(_ text: String) -> [(name: UInt16, label: String)] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var rows: [(UInt16, String)] = []
        for (index, line) in lines.enumerated() where index + 1 < lines.count {
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count == 20, fields[0..<12].joined(separator: " ") == "3B 8F 80 01 80 4F 0C A0 00 00 03 06",
                fields[12] == "..", fields[19] == "..", fields[13] == "00",
                let name = UInt16(fields[13] + fields[14], radix: 16),
                fields[15...18].allSatisfy({ $0 == "00" })
            else { continue }
            rows.append((name, lines[index + 1].trimmingCharacters(in: .whitespaces)))
        }
        return rows
    }

    /// What the row's name says, for the families these detectors know; nil for the others.
    static func expectedFamily(_ label: String) -> String? {
        let lower = label.lowercased()
        if lower.contains("mifare classic") || lower.contains("mifare mini") { return "classic" }
        if lower.contains("ultralight") { return "ntag" }
        if lower.contains("felica") { return "felica" }
        return nil
    }

    static func atr(standard: UInt8, name: UInt16) -> [UInt8] {
        let body = prefix + [standard, UInt8(name >> 8), UInt8(name & 0xFF), 0, 0, 0, 0]
        return body + [body.dropFirst().reduce(0, ^)]
    }

    @Test func everyCardNameRowIsDetectedAsItsNameSays() async throws {
        guard let text = try? String(contentsOfFile: Self.listPath, encoding: .utf8) else {
            if ProcessInfo.processInfo.environment["CI"] != nil {
                Issue.record("\(Self.listPath) is missing: Scripts/setup.sh installs pcsc-tools")
            }
            return
        }
        let rows = Self.cardNameRows(text)
        #expect(rows.count >= 50, "the list's part 3 card-name table (\(rows.count) rows)")
        let detection = CardFamilyDetection([ClassicFamilyDetector(), FeliCaFamilyDetector(), NTAGFamilyDetector()])
        var checked: [String: Int] = [:]
        for row in rows {
            // MIFARE Plus in security level 1 answers as a Classic, but its card name is its own:
            // these detectors do not claim it (a Plus client would).
            if row.label.lowercased().contains("mifare plus") { continue }
            let expected = Self.expectedFamily(row.label)
            let standard: UInt8 = expected == "felica" ? 0x11 : 0x03
            let found = try await detection.detect(
                atr: Self.atr(standard: standard, name: row.name), channel: NoProbes())
            #expect(found == expected, "\(row.label) (card name \(String(format: "%04X", row.name)))")
            checked[expected ?? "none", default: 0] += 1
        }
        #expect(checked["classic"] == 3, "Classic 1K, 4K and Mini: \(checked)")
        #expect(checked["ntag"] == 3, "Ultralight, Ultralight C and EV1: \(checked)")
        #expect(checked["felica"] == 1, "\(checked)")
    }
}
