/// A FeliCa service code: the 10-bit service number and the 6-bit attribute in one 16-bit value
/// (`number << 6 | attribute`), sent least significant byte first.
///
/// FeliCa Lite and Lite-S have one service of each kind over the same memory: ``liteReadOnly``
/// (`000B`, random access read-only without key) for reads and ``liteReadWrite`` (`0009`, random
/// access read/write without key) for writes (FeliCa Lite-S user's manual §4; nfcpy
/// `tt3_sony.py`). An NFC Forum Type 3 tag's NDEF service is `000B` too.
public struct FeliCaServiceCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt16

    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// Random access, read-only, without key (`000B`): reads on Lite/Lite-S and Type 3 NDEF.
    public static let liteReadOnly = FeliCaServiceCode(rawValue: 0x000B)
    /// Random access, read/write, without key (`0009`): writes on Lite/Lite-S.
    public static let liteReadWrite = FeliCaServiceCode(rawValue: 0x0009)

    /// The service code as it goes in a command: little endian.
    public var wireBytes: [UInt8] { FeliCaFrame.bigEndian(rawValue).reversed() }

    public var description: String { FeliCaFrame.bigEndian(rawValue).hexString }
}

/// A FeliCa system code (big endian on the wire, in Polling).
public enum FeliCaSystemCode {
    /// Any system (`FFFF`; an `FF` byte is a wildcard for that byte).
    public static let wildcard: UInt16 = 0xFFFF
    /// FeliCa Lite and Lite-S (`88B4`).
    public static let lite: UInt16 = 0x88B4
    /// NFC Forum Type 3 tag with NDEF (`12FC`).
    public static let ndef: UInt16 = 0x12FC
}
