import CardFlow

/// NDEF on an NFC Forum Type 2 Tag (NTAG, Ultralight) through a PC/SC reader's part 3
/// pseudo-APDUs: `FF B0 00 page 10` reads four pages, `FF D6 00 page 04` writes one.
///
/// The capability container (page 3) gives the data area size and access; the data area holds
/// TLVs (NULL 00, Lock Control 01, Memory Control 02, NDEF 03, Proprietary FD, Terminator FE).
/// Writing sets the NDEF TLV's length to 0 first and to the real length last, so a tag lifted
/// mid-write never holds a partial message that reads as valid.
public struct Type2Tag: Sendable {
    /// The most data-area bytes `FF B0 00 page` can reach: pages 4...255 (one P2 byte). A CC may
    /// declare up to 2040 bytes; the rest needs SECTOR_SELECT, which PC/SC readers do not offer.
    public static let maxAddressableDataArea = (256 - 4) * 4

    public let channel: any CardChannel

    public init(channel: any CardChannel) {
        self.channel = channel
    }

    /// The capability container: magic E1, version, data area size, write access.
    /// Writable means: CC write access 00 and no static lock bit set for the data pages (4-15).
    public func capabilityContainer() async throws -> (version: UInt8, dataAreaSize: Int, writable: Bool) {
        let pages = try await readPages(from: 2)
        let lockBits = UInt16(pages[2]) | UInt16(pages[3]) << 8
        let cc = Array(pages[4..<8])
        guard cc[0] == 0xE1 else { throw NDEFTagError.malformedCapabilityContainer("magic number \(cc[0]) is not E1") }
        guard cc[1] >> 4 == 1 else {
            throw NDEFTagError.malformedCapabilityContainer("unsupported version \(cc[1] >> 4).\(cc[1] & 0x0F)")
        }
        let dataPagesLocked = lockBits & 0xFFF0 != 0
        return (cc[1], Int(cc[2]) * 8, cc[3] == 0x00 && !dataPagesLocked)
    }

    /// The NDEF message bytes (empty when the NDEF TLV is empty).
    public func readMessageBytes() async throws -> [UInt8] {
        let (_, size, _) = try await capabilityContainer()
        // Only the pages up to the end of the NDEF TLV: a read-protected tail (NTAG AUTH0 with
        // PROT) is never touched, and a short message costs two reads, not the whole area.
        let area = try await readDataArea(size: min(size, Self.maxAddressableDataArea)) { area in
            switch Self.scanNDEF(in: area) {
            case .absent: true
            case .found(_, let valueOffset, let length): valueOffset + length <= area.count
            case .needMore: false
            }
        }
        guard let location = try Self.locateNDEF(in: area) else {
            throw NDEFTagError.malformedNDEFFile("no NDEF TLV in the data area")
        }
        guard location.valueOffset + location.length <= area.count else {
            throw NDEFTagError.malformedNDEFFile("NDEF TLV length \(location.length) runs past the data area")
        }
        return Array(area[location.valueOffset..<location.valueOffset + location.length])
    }

    /// Replaces the NDEF message.
    ///
    /// - Throws: ``NDEFTagError/messageTooLarge(size:capacity:)`` when the TLV does not fit the
    ///   part of the data area a reader can address (at most ``maxAddressableDataArea`` bytes).
    public func writeMessageBytes(_ message: [UInt8]) async throws {
        let (_, declared, writable) = try await capabilityContainer()
        guard writable else { throw NDEFTagError.readOnly }
        let size = min(declared, Self.maxAddressableDataArea)
        // Read up to where the new TLV and its Terminator end (the pages the plan writes); the
        // rest of the area is never written, so it stands as zeros in the image.
        let tlvCount = Self.ndefTLVHeaderCount(forLength: message.count) + message.count + 1
        var area = try await readDataArea(size: size) { area in
            switch Self.scanNDEF(in: area) {
            case .absent: area.count >= tlvCount
            case .found(let tlvOffset, _, _): area.count >= tlvOffset + tlvCount
            case .needMore: false
            }
        }
        area += [UInt8](repeating: 0, count: size - area.count)
        // Keep the TLVs that precede the NDEF TLV (lock/memory control) in place.
        let plan = try Type2NDEFWrite(
            message: message, area: area, tlvStart: try Self.locateNDEF(in: area)?.tlvOffset ?? 0)
        for write in plan.writes { try await writePage(4 + write.page, write.bytes) }
    }

    /// The NDEF TLV's T and L bytes for a value of `length` bytes: 1-byte L below 0xFF, else
    /// FF and 2 bytes; nil for a length the 3-byte form cannot carry (above 0xFFFE).
    public static func ndefTLVHeader(length: Int) -> [UInt8]? {
        switch length {
        case 0..<0xFF: [0x03, UInt8(length)]
        case 0xFF...0xFFFE: [0x03, 0xFF, UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length)]
        default: nil
        }
    }

    /// How many bytes ``ndefTLVHeader(length:)`` takes (4 for lengths it cannot carry).
    public static func ndefTLVHeaderCount(forLength length: Int) -> Int {
        (0..<0xFF).contains(length) ? 2 : 4
    }

    /// Where the NDEF TLV is: offset of its T byte, of its value, and its length.
    public static func locateNDEF(in area: [UInt8]) throws(NDEFTagError) -> (
        tlvOffset: Int, valueOffset: Int, length: Int
    )? {
        var offset = 0
        while offset < area.count {
            let tag = area[offset]
            switch tag {
            case 0x00: offset += 1; continue
            case 0xFE: return nil
            default: break
            }
            guard offset + 1 < area.count else {
                throw NDEFTagError.malformedNDEFFile("TLV at \(offset) has no length")
            }
            var length = Int(area[offset + 1])
            var valueOffset = offset + 2
            if length == 0xFF {
                guard offset + 3 < area.count else {
                    throw NDEFTagError.malformedNDEFFile("3-byte TLV length at \(offset) is cut")
                }
                length = Int(area[offset + 2]) << 8 | Int(area[offset + 3])
                valueOffset = offset + 4
            }
            if tag == 0x03 { return (offset, valueOffset, length) }
            offset = valueOffset + length
        }
        return nil
    }

    /// Where a scan of the data area read so far stands.
    enum NDEFScan {
        /// The NDEF TLV's header is complete (its value may still run past what was read).
        case found(tlvOffset: Int, valueOffset: Int, length: Int)
        /// A Terminator TLV came first: there is no NDEF TLV.
        case absent
        /// The TLVs read so far end before either.
        case needMore
    }

    /// Scans `area` (the data area as read so far) like ``locateNDEF(in:)``, telling a missing
    /// NDEF TLV from one not read yet.
    static func scanNDEF(in area: [UInt8]) -> NDEFScan {
        var offset = 0
        while offset < area.count {
            switch area[offset] {
            case 0x00:
                offset += 1
                continue
            case 0xFE: return .absent
            default: break
            }
            guard offset + 1 < area.count else { return .needMore }
            var length = Int(area[offset + 1])
            var valueOffset = offset + 2
            if length == 0xFF {
                guard offset + 3 < area.count else { return .needMore }
                length = Int(area[offset + 2]) << 8 | Int(area[offset + 3])
                valueOffset = offset + 4
            }
            if area[offset] == 0x03 { return .found(tlvOffset: offset, valueOffset: valueOffset, length: length) }
            offset = valueOffset + length
        }
        return .needMore
    }

    /// Reads the data area four pages at a time until `enough` says what was read suffices or
    /// `size` bytes are read.
    private func readDataArea(size: Int, until enough: ([UInt8]) -> Bool) async throws -> [UInt8] {
        var area: [UInt8] = []
        area.reserveCapacity(size)
        while area.count < size, !enough(area) {
            area += try await readPages(from: 4 + area.count / 4)
        }
        return Array(area.prefix(size))
    }

    private func readPages(from page: Int) async throws -> [UInt8] {
        guard (0...255).contains(page) else { throw NDEFTagError.malformedNDEFFile("page \(page) cannot be addressed") }
        let command = try CommandAPDU(cla: 0xFF, ins: 0xB0, p1: 0x00, p2: UInt8(page), le: 16)
        let response = try await channel.transmit(command)
        try response.throwIfNotSuccess(for: command)
        guard response.data.count == 16 else {
            throw NDEFTagError.malformedNDEFFile(
                "page read at \(page) returned \(response.data.count) bytes, 16 expected")
        }
        return response.data
    }

    private func writePage(_ page: Int, _ bytes: [UInt8]) async throws {
        guard (0...255).contains(page) else { throw NDEFTagError.malformedNDEFFile("page \(page) cannot be addressed") }
        let command = try CommandAPDU(cla: 0xFF, ins: 0xD6, p1: 0x00, p2: UInt8(page), data: bytes)
        let response = try await channel.transmit(command)
        try response.throwIfNotSuccess(for: command)
    }
}
