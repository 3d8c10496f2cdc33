import CardFlow

/// The MIFARE Application Directory (NXP AN10787): which application each sector holds.
///
/// MAD1 sits in sector 0, blocks 1–2: a CRC byte, an info byte (the card publisher sector in its
/// low 6 bits) and 15 application identifiers for sectors 1–15. MAD2 (4K cards) adds sector 16,
/// blocks 64–66: a CRC byte, an info byte and 23 identifiers for sectors 17–39. Each CRC is a
/// CRC-8 with polynomial `1D` and preset `C7` over the bytes after it.
///
/// ```swift
/// let mad = try ClassicMAD(sector0: blocks1And2)
/// mad.sectors(for: .ndef)     // [1, 2, …]
/// ```
public struct ClassicMAD: Sendable, Hashable {
    /// 1 (sector 0 only) or 2 (sector 0 and sector 16).
    public let version: Int
    /// The info byte of sector 0: bits 0–5 point to the card publisher sector (0: none).
    public var infoByte: UInt8
    /// The info byte of sector 16 (MAD2 only).
    public var infoByte2: UInt8
    /// The identifiers of sectors 1–15, and for MAD2 then of sectors 17–39 (38 in all).
    public var applications: [ClassicMADApplicationID]

    /// An empty MAD (every sector free) of `version` 1 or 2.
    ///
    /// - Throws: ``StorageCardError/invalidArgument(_:)`` for another version.
    public init(version: Int) throws(StorageCardError) {
        guard version == 1 || version == 2 else { throw .invalidArgument("MAD version is 1 or 2, not \(version)") }
        self.version = version
        infoByte = 0
        infoByte2 = 0
        applications = Array(repeating: .free, count: version == 1 ? 15 : 38)
    }

    /// Decodes sector 0's blocks 1–2 (32 bytes) and, for MAD2, sector 16's blocks 64–66 (48 bytes).
    ///
    /// - Throws: ``StorageCardError/malformedMAD(_:)`` for wrong lengths or a CRC that does not match.
    public init(sector0: [UInt8], sector16: [UInt8]? = nil) throws(StorageCardError) {
        guard sector0.count == 32 else { throw .malformedMAD("sector 0 MAD has 32 bytes, not \(sector0.count)") }
        guard Self.crc(sector0[1...]) == sector0[0] else {
            throw .malformedMAD(
                "sector 0 CRC \([sector0[0]].hexString) does not match \([Self.crc(sector0[1...])].hexString)")
        }
        var applications = Self.identifiers(sector0[2...])
        infoByte = sector0[1]
        infoByte2 = 0
        if let sector16 {
            guard sector16.count == 48 else {
                throw .malformedMAD("sector 16 MAD has 48 bytes, not \(sector16.count)")
            }
            guard Self.crc(sector16[1...]) == sector16[0] else { throw .malformedMAD("sector 16 CRC does not match") }
            infoByte2 = sector16[1]
            applications += Self.identifiers(sector16[2...])
            version = 2
        } else {
            version = 1
        }
        self.applications = applications
    }

    /// The CRC-8 of AN10787: polynomial `x⁸ + x⁴ + x³ + x² + 1` (`1D`), preset `C7`, no final XOR.
    public static func crc(_ bytes: some Sequence<UInt8>) -> UInt8 {
        var crc: UInt8 = 0xC7
        for byte in bytes {
            crc ^= byte
            for _ in 0..<8 {
                crc = crc & 0x80 != 0 ? (crc << 1) ^ 0x1D : crc << 1
            }
        }
        return crc
    }

    /// Sector 0's blocks 1–2, CRC included.
    public var sector0Bytes: [UInt8] {
        let body = [infoByte] + applications.prefix(15).flatMap(\.storedBytes)
        return [Self.crc(body)] + body
    }

    /// Sector 16's blocks 64–66, CRC included; nil for MAD1.
    public var sector16Bytes: [UInt8]? {
        guard version == 2 else { return nil }
        let body = [infoByte2] + applications.dropFirst(15).flatMap(\.storedBytes)
        return [Self.crc(body)] + body
    }

    /// The general purpose byte of sector 0's trailer for this MAD: DA (MAD available) and MA
    /// (multi-application card) set, and the MAD version in bits 0–1: `C1` or `C2`.
    public var generalPurposeByte: UInt8 { 0xC0 | UInt8(version) }

    /// The sector number an index of ``applications`` stands for.
    public static func sector(ofEntry index: Int) -> Int {
        index < 15 ? index + 1 : index + 2
    }

    /// The identifier of `sector`, nil for sectors the MAD does not cover (0, 16, beyond).
    public func application(ofSector sector: Int) -> ClassicMADApplicationID? {
        let index = sector <= 15 ? sector - 1 : sector - 2
        guard sector != 0, sector != 16, applications.indices.contains(index) else { return nil }
        return applications[index]
    }

    /// Sets the identifier of `sector`.
    ///
    /// - Throws: ``StorageCardError/invalidArgument(_:)`` for a sector the MAD does not cover.
    public mutating func setApplication(_ id: ClassicMADApplicationID, ofSector sector: Int) throws(StorageCardError) {
        let index = sector <= 15 ? sector - 1 : sector - 2
        guard sector != 0, sector != 16, applications.indices.contains(index) else {
            throw .invalidArgument("MAD\(version) has no entry for sector \(sector)")
        }
        applications[index] = id
    }

    /// The sectors holding `id`, in order.
    public func sectors(for id: ClassicMADApplicationID) -> [Int] {
        applications.indices.filter { applications[$0] == id }.map(Self.sector(ofEntry:))
    }

    private static func identifiers(_ bytes: ArraySlice<UInt8>) -> [ClassicMADApplicationID] {
        let array = Array(bytes)
        return stride(from: 0, to: array.count - 1, by: 2).map {
            ClassicMADApplicationID(storedBytes: array[$0], array[$0 + 1])
        }
    }
}
