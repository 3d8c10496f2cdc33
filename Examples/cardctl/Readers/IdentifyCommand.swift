import ArgumentParser
import CardFlow
import Foundation

/// `cardctl identify`: powers the card and names it from its ATR.
struct IdentifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "identify",
        abstract: "Power the card and name it from its ATR.",
        discussion: """
            Reads what the ATR itself says (PC/SC part 3 contactless ATRs: the standard and card name, such as \
            MIFARE Classic 1K or FeliCa; ISO/IEC 7816-4 historical bytes), and looks the ATR up in pcsc-tools' \
            smartcard_list.txt when it is installed (\(SmartcardList.debianPath); Debian package pcsc-tools). \
            With --atr HEX no reader is opened.
            """)

    @OptionGroup(title: "Global Options") var global: GlobalOptions

    @Option(name: .long, help: ArgumentHelp("Identify this ATR instead of the card on the reader.", valueName: "HEX"))
    var atr: String?

    @Option(
        name: .customLong("atr-list"),
        help: ArgumentHelp(
            "pcsc-tools' ATR list to look the ATR up in (default \(SmartcardList.debianPath) when present; none: no lookup).",
            valueName: "PATH"))
    var atrList: String?

    /// What `--json` prints.
    struct Report: Encodable {
        struct Coded: Encodable {
            let value: String
            let name: String?
        }

        struct DatabaseMatch: Encodable {
            let pattern: String
            let descriptions: [String]
        }

        let atr: String
        let uid: String?
        /// The best name: the ATR's own (PC/SC card name), else the database's first description.
        let name: String?
        let kind: String
        /// The card family its answers to harmless probes show (`desfire`, `ton`, `ndef`,
        /// `iso15693`); nil for none of them, or with `--atr` (no card to ask).
        let family: String?
        let standard: Coded?
        let cardName: Coded?
        let historicalBytes: String?
        let details: [String]
        /// The ATR list looked in; nil when there was none.
        let database: String?
        let matches: [DatabaseMatch]
    }

    func run() async throws {
        let (atrBytes, uid, family) = try await readATR()
        let identification = ATRIdentification(atr: atrBytes)
        let (database, matches) = try lookUp(atrBytes)
        let report = Report(
            atr: atrBytes.hexString, uid: uid?.hexString,
            name: identification.name ?? matches.first?.descriptions.first,
            kind: identification.kind.rawValue, family: family,
            standard: identification.standard.map { Report.Coded(value: [$0.rawValue].hexString, name: $0.name) },
            cardName: identification.cardName.map {
                Report.Coded(value: $0.bytes.hexString, name: $0.name)
            },
            historicalBytes: identification.historicalBytes?.bytes.hexString,
            details: identification.details, database: database,
            matches: matches.map { Report.DatabaseMatch(pattern: $0.pattern, descriptions: $0.descriptions) })
        if global.json {
            try Output.sortedJSON(report)
            return
        }
        Output.standardOutput("ATR: \(atrBytes.spacedHexString)")
        if let uid { Output.standardOutput("UID: \(uid.hexString)") }
        Output.standardOutput("Card: \(report.name ?? "not named by its ATR")")
        if let family { Output.standardOutput("Family: \(family)") }
        for line in identification.details { Output.standardOutput("  " + line) }
        if let database {
            if matches.isEmpty {
                Output.standardOutput("\(database): no entry for this ATR")
            } else {
                Output.standardOutput("\(database):")
                for line in matches.flatMap(\.descriptions) { Output.standardOutput("  " + line) }
            }
        } else if atrList == nil {
            Output.standardOutput("(install pcsc-tools for names from its ATR list, \(SmartcardList.debianPath))")
        }
    }

    /// `--atr`, or the ATR, UID and family of the card on the reader (powered on for this; the
    /// family from harmless probes, nothing written).
    private func readATR() async throws -> ([UInt8], [UInt8]?, String?) {
        if let atr {
            do {
                return (try [UInt8](hex: atr), nil, nil)
            } catch {
                throw InputError(description: "--atr takes the ATR in hex: \(error)")
            }
        }
        return try await ReaderConnection.withPrimarySession(global) { session in
            let identity = await session.identity
            let family = try await cardFamilies.detect(atr: identity.atr, channel: session)
            return (identity.atr, identity.uid, family)
        }
    }

    /// The ATR list's path and its entries for `atr`; no path when there is no list to read.
    private func lookUp(_ atr: [UInt8]) throws -> (String?, [SmartcardList.Entry]) {
        let path: String
        switch atrList {
        case "none"?: return (nil, [])
        case let given?: path = given
        case nil:
            guard FileManager.default.fileExists(atPath: SmartcardList.debianPath) else { return (nil, []) }
            path = SmartcardList.debianPath
        }
        do {
            return (path, try SmartcardList(contentsOfFile: path).entries(matching: atr))
        } catch {
            throw InputError(description: "\(error)")
        }
    }
}
