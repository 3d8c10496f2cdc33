/// The access configuration of an NTAG21x or Ultralight EV1: CFG0 and CFG1, the two pages at
/// ``Type2Product/configurationPage``.
///
/// NTAG213/215/216 datasheet §8.5.7: CFG0 = `MIRROR RFUI MIRROR_PAGE AUTH0`, CFG1 =
/// `ACCESS RFUI RFUI RFUI`; ACCESS bit 7 PROT (0: the password protects writes from AUTH0 on,
/// 1: reads too), bit 6 CFGLCK (user configuration locked for good), bit 4 NFC_CNT_EN, bit 3
/// NFC_CNT_PWD_PROT, bits 2–0 AUTHLIM (failed PWD_AUTH attempts before the password is locked
/// for good, 2^AUTHLIM; 0 disables the limit). Ultralight EV1 (MF0ULX1 §8.5.7): CFG0 = `MOD
/// RFUI RFUI AUTH0`, CFG1 = `ACCESS VCTID RFUI RFUI` with PROT, CFGLCK and AUTHLIM at the same
/// bits. Bytes this type does not name are kept as read.
///
/// The password travels in clear on RF (PWD_AUTH sends it, PACK comes back as is): it stops
/// overwriting, it does not keep anyone who listens from learning it.
public struct Type2Configuration: Sendable, Hashable {
    /// The eight bytes of CFG0 and CFG1 as read.
    public private(set) var bytes: [UInt8]

    /// The configuration in `bytes` (CFG0 then CFG1).
    ///
    /// - Throws: ``StorageCardError/invalidArgument(_:)`` unless there are 8 bytes.
    public init(bytes: [UInt8]) throws(StorageCardError) {
        guard bytes.count == 8 else { throw .invalidArgument("CFG0 and CFG1 are 8 bytes, not \(bytes.count)") }
        self.bytes = bytes
    }

    /// The first page the password protects; `FF` (or any page past the end) disables it.
    public var auth0: UInt8 {
        get { bytes[3] }
        set { bytes[3] = newValue }
    }

    /// PROT: the password protects reads too, not only writes.
    public var protectsReads: Bool {
        get { bytes[4] & 0x80 != 0 }
        set { set(0x80, newValue) }
    }

    /// CFGLCK: CFG0 and CFG1 can no longer be written (for good).
    public var configurationLocked: Bool {
        get { bytes[4] & 0x40 != 0 }
        set { set(0x40, newValue) }
    }

    /// NFC_CNT_EN (NTAG21x): the NFC counter counts the first read after each power-up.
    public var counterEnabled: Bool {
        get { bytes[4] & 0x10 != 0 }
        set { set(0x10, newValue) }
    }

    /// NFC_CNT_PWD_PROT (NTAG21x): READ_CNT needs PWD_AUTH first.
    public var counterPasswordProtected: Bool {
        get { bytes[4] & 0x08 != 0 }
        set { set(0x08, newValue) }
    }

    /// AUTHLIM, 0–7: the tag allows 2^AUTHLIM failed PWD_AUTH in total; 0 means no limit.
    public var authenticationLimit: UInt8 {
        get { bytes[4] & 0x07 }
        set { bytes[4] = bytes[4] & ~0x07 | min(newValue, 7) }
    }

    /// CFG0 (page ``Type2Product/configurationPage``).
    public var cfg0: [UInt8] { Array(bytes[0..<4]) }
    /// CFG1 (the page after).
    public var cfg1: [UInt8] { Array(bytes[4..<8]) }

    private mutating func set(_ bit: UInt8, _ on: Bool) {
        bytes[4] = on ? bytes[4] | bit : bytes[4] & ~bit
    }
}

/// A 4-byte PWD_AUTH password and its 2-byte acknowledgement PACK. Factory values: `FF FF FF FF`
/// and `00 00` (NTAG213/215/216 datasheet §8.8). Never logged.
public struct Type2Password: Sendable, Hashable, CustomStringConvertible {
    public let bytes: [UInt8]

    /// The factory password `FF FF FF FF`.
    public static let factory = Type2Password(unchecked: [0xFF, 0xFF, 0xFF, 0xFF])

    /// - Throws: ``StorageCardError/invalidArgument(_:)`` unless 4 bytes.
    public init(_ bytes: [UInt8]) throws(StorageCardError) {
        guard bytes.count == 4 else { throw .invalidArgument("a password has 4 bytes, not \(bytes.count)") }
        self.bytes = bytes
    }

    private init(unchecked bytes: [UInt8]) { self.bytes = bytes }

    /// Redacted: passwords stay out of logs and descriptions.
    public var description: String { "<password>" }
}
