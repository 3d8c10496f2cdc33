/// The ATR a contactless reader makes up for a card, as PC/SC 2.0x part 3 §3.1.3.2.3 prescribes:
/// what a CCID reader returns from `PC_to_RDR_IccPowerOn`, and what a backend whose reader gives
/// no ATR (a uFR reader reports only card type and UID) builds so every client identifies the
/// card as it would on a PC/SC reader. ``ATRIdentification`` reads these ATRs back.
///
/// - ISO 14443-4 type A: `3B 8n 80 01 <historical bytes> TCK`, n = number of historical bytes
///   (at most 15) taken from the ATS; without historical bytes `3B 80 80 01 01`.
/// - ISO 14443-4 type B: `3B 88 80 01 <ATQB application data (4)> <ATQB protocol info (3)>
///   <MBLI << 4> TCK`.
/// - Storage cards: `3B 8F 80 01 80 4F 0C A0 00 00 03 06 SS C0 C1 00 00 00 00 TCK`.
///
/// TCK is the XOR of every byte from T0 up to the byte before TCK.
///
/// ```swift
/// PCSCPart3ATR.typeA(historicalBytes: [0x80])                    // 3B 81 80 01 80 80 (DESFire)
/// PCSCPart3ATR.storageCard(standard: 0x03, cardName: 0x0001)     // MIFARE Classic 1K
/// ```
public enum PCSCPart3ATR {
    /// The registered application provider identifier of the PC/SC workgroup, `A0 00 00 03 06`.
    public static let pcscRID: [UInt8] = [0xA0, 0x00, 0x00, 0x03, 0x06]

    /// ATR of an ISO 14443-4 type A card: `3B 8n 80 01 HB TCK`, or `3B 80 80 01 01` when
    /// `historicalBytes` is empty.
    ///
    /// An ATR holds at most 15 historical bytes; further bytes are dropped.
    public static func typeA(historicalBytes: [UInt8]) -> [UInt8] {
        let hb = Array(historicalBytes.prefix(15))
        return withTCK([0x3B, 0x80 | UInt8(hb.count), 0x80, 0x01] + hb)
    }

    /// ATR of an ISO 14443-4 type B card:
    /// `3B 88 80 01 <application data> <protocol info> <MBLI << 4> TCK`.
    ///
    /// `applicationData` is padded or cut to 4 bytes, `protocolInfo` to 3 bytes; only the low
    /// nibble of `mbli` is used.
    public static func typeB(applicationData: [UInt8], protocolInfo: [UInt8], mbli: UInt8) -> [UInt8] {
        let app = fitted(applicationData, to: 4)
        let info = fitted(protocolInfo, to: 3)
        return withTCK([0x3B, 0x88, 0x80, 0x01] + app + info + [(mbli & 0x0F) << 4])
    }

    /// ATR of a storage (non ISO-DEP) card:
    /// `3B 8F 80 01 80 4F 0C A0 00 00 03 06 SS C0 C1 00 00 00 00 TCK`.
    public static func storageCard(standard: UInt8, cardName: UInt16) -> [UInt8] {
        let body: [UInt8] =
            [0x3B, 0x8F, 0x80, 0x01, 0x80, 0x4F, 0x0C] + pcscRID
            + [standard, UInt8(cardName >> 8), UInt8(cardName & 0xFF), 0x00, 0x00, 0x00, 0x00]
        return withTCK(body)
    }

    /// The historical bytes of an ISO 14443-4 ATS (`TL T0 [TA1] [TB1] [TC1] T1…Tk [CRC]`).
    ///
    /// TL counts itself and excludes the CRC, so bytes after TL are ignored. A lone `TL = 01`
    /// means no T0 and no historical bytes.
    ///
    /// - Returns: the historical bytes, or `nil` if the ATS is empty, TL is zero or larger
    ///   than the bytes given, or the interface bytes announced by T0 are missing.
    public static func historicalBytes(fromATS ats: [UInt8]) -> [UInt8]? {
        guard let tl = ats.first, tl >= 1, Int(tl) <= ats.count else { return nil }
        if tl == 1 { return [] }
        let t0 = ats[1]
        var index = 2
        for mask: UInt8 in [0x10, 0x20, 0x40] where t0 & mask != 0 { index += 1 }
        guard index <= Int(tl) else { return nil }
        return Array(ats[index..<Int(tl)])
    }

    /// The check byte TCK: XOR of `atr[1...]` (T0 up to the last byte given).
    public static func checkByte(for atrWithoutTCK: [UInt8]) -> UInt8 {
        atrWithoutTCK.dropFirst().reduce(0, ^)
    }

    private static func withTCK(_ bytes: [UInt8]) -> [UInt8] {
        bytes + [checkByte(for: bytes)]
    }

    private static func fitted(_ bytes: [UInt8], to count: Int) -> [UInt8] {
        Array(bytes.prefix(count)) + [UInt8](repeating: 0, count: max(0, count - bytes.count))
    }
}
