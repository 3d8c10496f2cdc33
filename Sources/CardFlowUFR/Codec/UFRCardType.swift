import CardFlow

/// A Digital Logic card type code, Val0 of GET_DLOGIC_CARD_TYPE (0x3C), and the PC/SC part 3
/// ATR a CardFlow session sees for it (the reader reports no ATR and no ATS).
///
/// ```swift
/// UFRCardType(rawValue: 0x28).isISODEP    // true: DESFire EV1 2K
/// UFRCardType(rawValue: 0x28).atr         // 3B 81 80 01 80 80
/// ```
public struct UFRCardType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt8

    /// The type `rawValue`.
    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// DESFire (0x27), EV1 2K/4K/8K (0x28–0x2A), EV2 2K/4K/8K (0x2B–0x2D).
    public static let desfireTypes: ClosedRange<UInt8> = 0x27...0x2D
    /// DESFire Light (0x3F).
    public static let desfireLight = Self(rawValue: 0x3F)
    /// A generic ISO 14443-4 card (0x40).
    public static let genericISODEP = Self(rawValue: 0x40)
    /// A generic ISO 14443-4 type B card (0x41).
    public static let genericISODEPTypeB = Self(rawValue: 0x41)

    /// Whether the card speaks ISO 14443-4 (APDUs through APDU_TRANSCEIVE): the DESFire family,
    /// NTAG 413/424 DNA and the generic ISO 14443-4 types.
    public var isISODEP: Bool {
        Self.desfireTypes.contains(rawValue) || (0x11...0x13).contains(rawValue) || self == .desfireLight
            || self == .genericISODEP || self == .genericISODEPTypeB
    }

    /// The ATR built by the PC/SC part 3 convention. The reader gives no ATS, so:
    /// - DESFire (0x27–0x2D, 0x3F) is given the historical byte `80` its ATS carries:
    ///   `3B 81 80 01 80 80`;
    /// - other ISO 14443-4 cards (NTAG 4xx DNA, the generic types) have no historical bytes:
    ///   `3B 80 80 01 01`;
    /// - storage cards are named by the part 3 card-name table; NTAG 21x and the other Type 2
    ///   tags have no name there and are reported as MIFARE Ultralight (`00 03`), as most PC/SC
    ///   readers do; codes this backend does not know as "no information given" (`00 00`).
    public var atr: [UInt8] {
        if Self.desfireTypes.contains(rawValue) || self == .desfireLight {
            return PCSCPart3ATR.typeA(historicalBytes: [0x80])
        }
        if isISODEP { return PCSCPart3ATR.typeA(historicalBytes: []) }
        return PCSCPart3ATR.storageCard(standard: 0x03, cardName: storageCardName)
    }

    private var storageCardName: UInt16 {
        switch rawValue {
        case 0x04: 0x003A // Ultralight C
        case 0x02, 0x03: 0x003D // Ultralight EV1
        case 0x01, 0x05...0x10: 0x0003 // Ultralight, NTAG 2xx, other Type 2 tags
        case 0x20: 0x0026 // Classic Mini
        case 0x21: 0x0001 // Classic 1K
        case 0x22: 0x0002 // Classic 4K
        default: 0x0000
        }
    }

    private static let names: [UInt8: String] = [
        0x00: "unknown tag", 0x01: "MIFARE Ultralight", 0x02: "MIFARE Ultralight EV1 11",
        0x03: "MIFARE Ultralight EV1 21", 0x04: "MIFARE Ultralight C", 0x05: "NTAG 203", 0x06: "NTAG 210",
        0x07: "NTAG 212", 0x08: "NTAG 213", 0x09: "NTAG 215", 0x0A: "NTAG 216", 0x0B: "Mikron MIK640D",
        0x0C: "NFC Type 2 tag", 0x11: "NTAG 413 DNA", 0x12: "NTAG 424 DNA", 0x13: "NTAG 424 DNA TT",
        0x20: "MIFARE Mini", 0x21: "MIFARE Classic 1K", 0x22: "MIFARE Classic 4K", 0x27: "MIFARE DESFire",
        0x28: "MIFARE DESFire EV1 2K", 0x29: "MIFARE DESFire EV1 4K", 0x2A: "MIFARE DESFire EV1 8K",
        0x2B: "MIFARE DESFire EV2 2K", 0x2C: "MIFARE DESFire EV2 4K", 0x2D: "MIFARE DESFire EV2 8K",
        0x3F: "MIFARE DESFire Light", 0x40: "ISO 14443-4 card", 0x41: "ISO 14443-4 type B card",
        0x42: "ISO 14443-3 type B card",
    ]

    /// The card's name, nil for codes this backend does not name.
    public var name: String? { Self.names[rawValue] }

    public var description: String {
        let hex = [rawValue].spacedHexString
        return name.map { "\($0) (\(hex))" } ?? "card type \(hex)"
    }
}
