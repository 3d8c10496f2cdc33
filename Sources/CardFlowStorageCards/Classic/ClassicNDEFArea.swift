import CardFlow

/// NDEF on a MIFARE Classic card (NFC Forum "MIFARE Classic as NFC Type MIFARE Classic Tag",
/// NXP AN1304/AN1305): the data blocks of the sectors the MAD marks `E1 03`, read as one byte
/// area in sector order, hold TLVs; the NDEF message is the value of the NDEF TLV (`03`).
///
/// TLVs: NULL `00` (no length), Lock Control `01`, Memory Control `02`, NDEF `03`, Proprietary
/// `FD`, Terminator `FE` (no length). A length byte `FF` announces a 2-byte length.
///
/// ```swift
/// let area = ClassicNDEFArea.tlvBytes(for: try message.encoded())   // 03 L … FE
/// let bytes = try ClassicNDEFArea.message(in: area)
/// ```
public enum ClassicNDEFArea {
    /// The general purpose byte of an NDEF sector's trailer: mapping version 1.0, read and write
    /// access granted (`40`).
    public static let generalPurposeByte: UInt8 = 0x40

    /// The NDEF TLV holding `message`, followed by a Terminator TLV.
    public static func tlvBytes(for message: [UInt8]) -> [UInt8] {
        header(length: message.count) + message + [0xFE]
    }

    /// The T and L bytes of an NDEF TLV of `length` value bytes.
    public static func header(length: Int) -> [UInt8] {
        length < 0xFF
            ? [0x03, UInt8(truncatingIfNeeded: max(0, length))]
            : [0x03, 0xFF, UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length)]
    }

    /// How many bytes the NDEF TLV needs, with its Terminator: the message plus 3 or 5.
    public static func requiredBytes(forMessageLength length: Int) -> Int {
        header(length: length).count + length + 1
    }

    /// Where the NDEF TLV's value lies in `area`: the offset of its first byte and its length;
    /// nil when a Terminator or the end comes first.
    ///
    /// - Throws: ``StorageCardError/malformedNDEF(_:)`` for a TLV whose length is cut off or runs
    ///   past the area.
    public static func locateMessage(in area: [UInt8]) throws(StorageCardError) -> (offset: Int, length: Int)? {
        var offset = 0
        while offset < area.count {
            let tag = area[offset]
            switch tag {
            case 0x00:
                offset += 1
                continue
            case 0xFE:
                return nil
            default:
                break
            }
            guard offset + 1 < area.count else {
                throw .malformedNDEF("TLV \([tag].hexString) at \(offset) has no length")
            }
            var length = Int(area[offset + 1])
            var valueOffset = offset + 2
            if length == 0xFF {
                guard offset + 3 < area.count else { throw .malformedNDEF("3-byte TLV length at \(offset) is cut off") }
                length = Int(area[offset + 2]) << 8 | Int(area[offset + 3])
                valueOffset = offset + 4
            }
            if tag == 0x03 {
                guard valueOffset + length <= area.count else {
                    throw .malformedNDEF("NDEF TLV length \(length) runs past the \(area.count)-byte area")
                }
                return (valueOffset, length)
            }
            offset = valueOffset + length
        }
        return nil
    }

    /// The NDEF message bytes in `area`.
    ///
    /// - Throws: ``StorageCardError/malformedNDEF(_:)`` when there is no NDEF TLV or a TLV is cut off.
    public static func message(in area: [UInt8]) throws(StorageCardError) -> [UInt8] {
        guard let location = try locateMessage(in: area) else {
            throw .malformedNDEF("no NDEF TLV in the NDEF sectors")
        }
        return Array(area[location.offset..<location.offset + location.length])
    }
}
