/// What an ATR says about the card that sent it, without talking to the card.
///
/// - PC/SC part 3 storage cards (`3B 8F 80 01 80 4F 0C A0 00 00 03 06 SS NN NN 00 00 00 00 TCK`,
///   the ATR a contactless reader makes up for a card without ISO/IEC 14443-4): the standard
///   and the card name from the PC/SC tables, e.g. "MIFARE Classic 1K".
/// - ISO/IEC 14443-4 cards on a PC/SC part 3 reader (`3B 8n 80 01 <historical bytes> TCK`): the
///   ATS historical bytes, read as ISO/IEC 7816-4 structures them.
/// - Contact cards: their protocols and historical bytes.
///
/// A card maker's own name for a card is in pcsc-tools' database, not in the ATR: see
/// ``SmartcardList``.
///
/// ```swift
/// let identification = ATRIdentification(atr: try [UInt8](hex: "3B8F8001804F0CA000000306030001000000006A"))
/// identification.name       // "MIFARE Classic 1K"
/// identification.kind       // .contactlessStorage
/// ```
public struct ATRIdentification: Sendable, Hashable {
    /// Which kind of card the ATR comes from.
    public enum Kind: String, Sendable, Hashable, CustomStringConvertible {
        /// A contactless card without ISO/IEC 14443-4 (MIFARE Classic, Ultralight, ICODE, FeliCa…):
        /// the reader made the ATR up, as PC/SC part 3 says.
        case contactlessStorage
        /// An ISO/IEC 14443-4 (ISO-DEP) contactless card; the reader built the ATR from its ATS.
        case contactlessISODEP
        /// A contact card's own ATR.
        case contact
        /// Bytes that are no well-formed ATR.
        case malformed

        public var description: String {
            switch self {
            case .contactlessStorage: "contactless storage card (PC/SC part 3 ATR)"
            case .contactlessISODEP: "contactless ISO/IEC 14443-4 card (PC/SC part 3 ATR from its ATS)"
            case .contact: "contact card"
            case .malformed: "malformed ATR"
            }
        }
    }

    /// The PC/SC workgroup's registered application provider identifier, which storage-card
    /// ATRs carry.
    public static let pcscRID: [UInt8] = [0xA0, 0x00, 0x00, 0x03, 0x06]

    /// The ATR.
    public let atr: [UInt8]
    /// Which kind of card sent it.
    public let kind: Kind
    /// The ATR's parts; nil when it is malformed.
    public let layout: ATRLayout?
    /// Why the ATR is malformed.
    public let layoutError: ATRLayoutError?
    /// Storage cards: the standard byte SS.
    public let standard: ContactlessStandard?
    /// Storage cards: the card name bytes NN NN.
    public let cardName: ContactlessCardName?
    /// The historical bytes, decoded (nil for storage cards, whose historical bytes are the
    /// PC/SC fields above, and for malformed ATRs).
    public let historicalBytes: HistoricalBytes?

    /// Reads `atr`; never fails (a malformed ATR is of kind ``Kind/malformed``, with ``layoutError``).
    public init(atr: [UInt8]) {
        self.atr = atr
        var standard: ContactlessStandard?
        var cardName: ContactlessCardName?
        var historical: HistoricalBytes?
        let kind: Kind
        do {
            let layout = try ATRLayout(bytes: atr)
            self.layout = layout
            self.layoutError = nil
            if Self.isPCSCContactless(layout) {
                let bytes = layout.historicalBytes
                if bytes.count == 15, bytes.prefix(3) == [0x80, 0x4F, 0x0C], Array(bytes[3..<8]) == Self.pcscRID {
                    kind = .contactlessStorage
                    standard = ContactlessStandard(rawValue: bytes[8])
                    cardName = ContactlessCardName(rawValue: UInt16(bytes[9]) << 8 | UInt16(bytes[10]))
                } else {
                    kind = .contactlessISODEP
                    historical = HistoricalBytes(bytes)
                }
            } else {
                kind = .contact
                historical = HistoricalBytes(layout.historicalBytes)
            }
        } catch {
            self.layout = nil
            self.layoutError = error
            kind = .malformed
        }
        self.kind = kind
        self.standard = standard
        self.cardName = cardName
        self.historicalBytes = historical
    }

    /// Whether the ATR is one a contactless reader made up for its card (PC/SC part 3), so the
    /// reader, not the card, answers the pseudo-APDUs with CLA `FF` such as GET DATA `FF CA`.
    public var isContactless: Bool { kind == .contactlessStorage || kind == .contactlessISODEP }

    /// ``isContactless`` of `atr` without the rest of the identification (the card name, the
    /// historical bytes): what a session asks on every power-on, so it reads the bytes in place
    /// rather than building an ``ATRLayout`` (whose arrays cost allocations per connection; the
    /// allocation gate counts them). The identification's own rule too (its layout's bytes): TS 3B,
    /// T0 announcing TD1 alone, TD1 `80` (TD2 alone, T=0), TD2 `01` (nothing more, T=1), then the
    /// historical bytes T0 counts and TCK, which T=1 requires, and nothing after it.
    public static func isContactless(atr: [UInt8]) -> Bool {
        guard atr.count >= 5, atr[0] == 0x3B, atr[1] & 0xF0 == 0x80, atr[2] == 0x80, atr[3] == 0x01 else {
            return false
        }
        return atr.count == 5 + Int(atr[1] & 0x0F)
    }

    /// The card's name when the ATR itself gives one: the PC/SC card name of a storage card.
    public var name: String? {
        guard let cardName, cardName.rawValue != 0 else { return nil }
        return cardName.name
    }

    /// One line per fact the ATR tells, for people.
    public var details: [String] {
        var lines = [kind.description]
        if let layoutError { lines.append(layoutError.description) }
        if let layout {
            if !layout.checksumIsValid {
                lines.append("TCK \([layout.checkByte ?? 0].hexString) is wrong (the ATR was read anyway)")
            }
            if kind == .contact {
                let protocols = Array(Set(layout.protocols.filter { $0 != 15 })).sorted().map { "T=\($0)" }
                lines.append("protocols: \(protocols.joined(separator: ", "))")
            }
        }
        if let standard { lines.append("standard: \(standard)") }
        if let cardName { lines.append("card name: \(cardName)") }
        if cardName?.rawValue == 0x0003 {
            lines.append("NFC Forum Type 2 tags (NTAG21x…) also report as MIFARE Ultralight")
        }
        if let historicalBytes, !historicalBytes.bytes.isEmpty {
            lines.append(
                "historical bytes: \(historicalBytes.bytes.hexString)"
                    + (historicalBytes.text.map { " (\"\($0)\")" } ?? ""))
            lines += Self.describe(historicalBytes).map { "  " + $0 }
        }
        return lines
    }

    /// `3B 8n 80 01 …`: TD1 announces TD2 and T=0, TD2 announces T=1, no other interface
    /// bytes (PC/SC part 3 §3.1.3.2.3).
    /// One rule for both: ``isContactless(atr:)`` reads it from the bytes.
    static func isPCSCContactless(_ layout: ATRLayout) -> Bool {
        isContactless(atr: layout.bytes)
    }

    private static func describe(_ historical: HistoricalBytes) -> [String] {
        var lines: [String] = []
        switch historical.category {
        case .compactTLVWithStatus?: lines.append("category 00: COMPACT-TLV objects and a status indicator")
        case .dirDataReference?:
            lines.append("category 10: DIR data reference \(Array(historical.bytes.dropFirst()).hexString)")
        case .compactTLV?:
            lines.append(
                historical.objects.isEmpty && !historical.malformed
                    ? "category 80: no COMPACT-TLV objects" : "category 80: COMPACT-TLV objects")
        case .reserved(let byte)?: lines.append("category \([byte].hexString): reserved for future use")
        case .proprietary?: lines.append("proprietary format")
        case nil: break
        }
        if historical.malformed { lines.append("the COMPACT-TLV objects are malformed") }
        lines += historical.objects.map(\.description)
        if let life = historical.lifeCycleDescription { lines.append("life cycle: \(life)") }
        if let statusWord = historical.statusWord { lines.append("status: \(StatusWord(statusWord).hexString)") }
        return lines
    }
}
