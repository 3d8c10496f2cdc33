/// What a reader sees of a card on the RF field (or, for contact cards, at reset).
///
/// The reader uses this to synthesise the ATR it reports to the host (see ``ContactlessATR``)
/// and to answer the PC/SC part 3 `FF CA` pseudo-APDUs (see ``PCSCPart3Responder``).
public enum ContactlessTechnology: Sendable, Hashable, Codable {
    /// ISO/IEC 14443-4 (ISO-DEP) type A card, described by its complete ATS
    /// (`TL T0 [TA1] [TB1] [TC1] historical bytes`, without CRC).
    ///
    /// The historical bytes are extracted with ``ContactlessATR/historicalBytes(fromATS:)``.
    case isoDepTypeA(ats: [UInt8])

    /// ISO/IEC 14443-4 type B card.
    ///
    /// - Parameters:
    ///   - applicationData: the 4 application data bytes of the ATQB.
    ///   - protocolInfo: the 3 protocol info bytes of the ATQB.
    ///   - mbli: the MBLI nibble of the ATTRIB response (0…15).
    case isoDepTypeB(applicationData: [UInt8], protocolInfo: [UInt8], mbli: UInt8)

    /// A storage card without ISO-DEP (MIFARE Classic/Ultralight, FeliCa, ISO 15693, …), which
    /// a PC/SC reader reports with the part 3 standard byte and the two card-name bytes.
    ///
    /// - Parameters:
    ///   - standard: the PC/SC part 3 `SS` byte (for example `0x03` ISO 14443A part 3,
    ///     `0x0B` ISO 15693 part 3, `0x11` FeliCa).
    ///   - cardName: the PC/SC part 3 `C0 C1` card name (for example `0x0001` MIFARE Classic 1K).
    case storage(standard: UInt8, cardName: UInt16)

    /// A contact card with its explicit answer-to-reset.
    case contact(atr: [UInt8])

    /// ISO-DEP type A with the DESFire EV1 ATS `06 75 77 81 02 80` (ATR `3B 81 80 01 80 80`).
    public static let desfireTypeA: ContactlessTechnology = .isoDepTypeA(ats: [0x06, 0x75, 0x77, 0x81, 0x02, 0x80])

    /// MIFARE Classic 1K (ISO 14443A part 3, card name `00 01`).
    public static let mifareClassic1K: ContactlessTechnology = .storage(standard: 0x03, cardName: 0x0001)

    /// MIFARE Classic 4K (ISO 14443A part 3, card name `00 02`).
    public static let mifareClassic4K: ContactlessTechnology = .storage(standard: 0x03, cardName: 0x0002)

    /// MIFARE Ultralight (ISO 14443A part 3, card name `00 03`).
    public static let mifareUltralight: ContactlessTechnology = .storage(standard: 0x03, cardName: 0x0003)

    /// FeliCa (standard `11`, card name `00 3B`).
    public static let felica: ContactlessTechnology = .storage(standard: 0x11, cardName: 0x003B)

    /// NXP ICODE SLI (ISO 15693 part 3, card name `00 14`).
    public static let icodeSLI: ContactlessTechnology = .storage(standard: 0x0B, cardName: 0x0014)

    /// Whether the card speaks ISO-DEP (type A or B), i.e. accepts ISO 7816-4 APDUs over RF.
    public var isISODEP: Bool {
        switch self {
        case .isoDepTypeA, .isoDepTypeB: true
        case .storage, .contact: false
        }
    }
}
