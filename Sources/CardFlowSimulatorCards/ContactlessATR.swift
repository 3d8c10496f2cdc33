import CardFlow

/// ATR synthesis for contactless cards as PC/SC 2.0x part 3 §3.1.3.2.3 prescribes
/// (the ATR a CCID contactless reader returns from `PC_to_RDR_IccPowerOn`).
///
/// - ISO 14443-4 type A: `3B 8n 80 01 <historical bytes> TCK`, n = number of historical
///   bytes (at most 15) taken from the ATS; without historical bytes `3B 80 80 01 01`.
/// - ISO 14443-4 type B: `3B 88 80 01 <ATQB application data (4)> <ATQB protocol info (3)>
///   <MBLI << 4> TCK`.
/// - Storage cards: `3B 8F 80 01 80 4F 0C A0 00 00 03 06 SS C0 C1 00 00 00 00 TCK`.
/// - Contact cards: their own ATR, unchanged.
///
/// TCK is the XOR of every byte from T0 up to the byte before TCK.
public enum ContactlessATR {
    /// The registered application provider identifier of the PC/SC workgroup, `A0 00 00 03 06`.
    public static let pcscRID: [UInt8] = PCSCPart3ATR.pcscRID

    /// The ATR a PC/SC part 3 reader reports for a card with this technology.
    public static func atr(for technology: ContactlessTechnology) -> [UInt8] {
        switch technology {
        case .isoDepTypeA(let ats):
            // A malformed ATS is reported like an ATS without historical bytes.
            return typeA(historicalBytes: historicalBytes(fromATS: ats) ?? [])
        case .isoDepTypeB(let applicationData, let protocolInfo, let mbli):
            return typeB(applicationData: applicationData, protocolInfo: protocolInfo, mbli: mbli)
        case .storage(let standard, let cardName):
            return storageCard(standard: standard, cardName: cardName)
        case .contact(let atr):
            return atr
        }
    }

    // The byte layouts live in CardFlow (``/CardFlow/PCSCPart3ATR``), which reader backends that build
    // ATRs themselves (uFR) share; these names stay for the simulator's callers.

    /// ATR of an ISO 14443-4 type A card (``/CardFlow/PCSCPart3ATR/typeA(historicalBytes:)``).
    public static func typeA(historicalBytes: [UInt8]) -> [UInt8] {
        PCSCPart3ATR.typeA(historicalBytes: historicalBytes)
    }

    /// ATR of an ISO 14443-4 type B card (``/CardFlow/PCSCPart3ATR/typeB(applicationData:protocolInfo:mbli:)``).
    public static func typeB(applicationData: [UInt8], protocolInfo: [UInt8], mbli: UInt8) -> [UInt8] {
        PCSCPart3ATR.typeB(applicationData: applicationData, protocolInfo: protocolInfo, mbli: mbli)
    }

    /// ATR of a storage card (``/CardFlow/PCSCPart3ATR/storageCard(standard:cardName:)``).
    public static func storageCard(standard: UInt8, cardName: UInt16) -> [UInt8] {
        PCSCPart3ATR.storageCard(standard: standard, cardName: cardName)
    }

    /// The historical bytes of an ISO 14443-4 ATS (``/CardFlow/PCSCPart3ATR/historicalBytes(fromATS:)``).
    public static func historicalBytes(fromATS ats: [UInt8]) -> [UInt8]? {
        PCSCPart3ATR.historicalBytes(fromATS: ats)
    }

    /// The check byte TCK (``/CardFlow/PCSCPart3ATR/checkByte(for:)``).
    public static func checkByte(for atrWithoutTCK: [UInt8]) -> UInt8 {
        PCSCPart3ATR.checkByte(for: atrWithoutTCK)
    }
}
