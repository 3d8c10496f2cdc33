import CardFlow

/// What kind of storage card sits on the reader, as the PC/SC part 3 ATR names it.
///
/// A contactless reader makes up the ATR `3B 8F 80 01 80 4F 0C A0 00 00 03 06 SS NN NN 00 00 00 00 TCK`
/// for a card without ISO/IEC 14443-4: `SS` is the standard byte, `NN NN` the card name from the
/// PC/SC part 3 supplement's table (`00 01` Classic 1K, `00 02` Classic 4K, `00 26` Mini, `00 03`
/// Ultralight — which NTAG21x also report —, `00 3A` Ultralight C, `00 3D` Ultralight EV1,
/// `00 3B` FeliCa). Names the table has but this layer does not drive are ``unknown(standard:cardName:)``.
///
/// ```swift
/// let kind = StorageCardKind(atr: await session.identity.atr)
/// if let layout = kind?.classicLayout { print("\(layout.sectorCount) sectors") }
/// ```
public enum StorageCardKind: Sendable, Hashable, CustomStringConvertible {
    /// MIFARE Classic 1K (card name `00 01`).
    case mifareClassic1K
    /// MIFARE Classic 4K (card name `00 02`).
    case mifareClassic4K
    /// MIFARE Mini (card name `00 26`).
    case mifareMini
    /// MIFARE Ultralight or an NFC Forum Type 2 tag reported as one, such as NTAG21x (`00 03`).
    case mifareUltralight
    /// MIFARE Ultralight C (`00 3A`).
    case mifareUltralightC
    /// MIFARE Ultralight EV1 (`00 3D`).
    case mifareUltralightEV1
    /// FeliCa (`00 3B`; the standard byte is `11`).
    case felica
    /// Any other standard byte and card name.
    case unknown(standard: UInt8, cardName: UInt16)

    /// The kind a PC/SC part 3 storage-card ATR names; nil when `atr` is no such ATR (an
    /// ISO-DEP card's or a contact card's, or malformed bytes).
    public init?(atr: [UInt8]) {
        let identification = ATRIdentification(atr: atr)
        guard identification.kind == .contactlessStorage, let standard = identification.standard,
            let name = identification.cardName
        else { return nil }
        self.init(standard: standard.rawValue, cardName: name.rawValue)
    }

    /// The kind for a standard byte and a card name.
    public init(standard: UInt8, cardName: UInt16) {
        switch cardName {
        case 0x0001: self = .mifareClassic1K
        case 0x0002: self = .mifareClassic4K
        case 0x0026: self = .mifareMini
        case 0x0003: self = .mifareUltralight
        case 0x003A: self = .mifareUltralightC
        case 0x003D: self = .mifareUltralightEV1
        case 0x003B: self = .felica
        default: self = .unknown(standard: standard, cardName: cardName)
        }
    }

    /// The sector layout when the card is a MIFARE Classic (Mini, 1K or 4K), else nil.
    public var classicLayout: ClassicCardLayout? {
        switch self {
        case .mifareClassic1K: .oneK
        case .mifareClassic4K: .fourK
        case .mifareMini: .mini
        default: nil
        }
    }

    public var description: String {
        switch self {
        case .mifareClassic1K: "MIFARE Classic 1K"
        case .mifareClassic4K: "MIFARE Classic 4K"
        case .mifareMini: "MIFARE Mini"
        case .mifareUltralight: "MIFARE Ultralight"
        case .mifareUltralightC: "MIFARE Ultralight C"
        case .mifareUltralightEV1: "MIFARE Ultralight EV1"
        case .felica: "FeliCa"
        case .unknown(let standard, let cardName):
            "storage card (standard \([standard].hexString), card name \(ContactlessCardName(rawValue: cardName)))"
        }
    }
}
