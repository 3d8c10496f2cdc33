import CardFlow

extension NTAGClient {
    /// The capability container (page 3): `E1`, version, data area size in 8-byte units,
    /// access (`00` read/write, `0F` read-only).
    public func capabilityContainer() async throws -> [UInt8] {
        Array(try await read(page: 3).prefix(4))
    }

    /// The NDEF data area: from page 4, the CC's size capped to the product's user memory.
    func ndefAreaPages() async throws -> ClosedRange<Int> {
        let cc = try await capabilityContainer()
        guard cc[0] == 0xE1, cc[1] >> 4 == 1 else {
            throw StorageCardError.malformedNDEF("capability container \(cc.spacedHexString) is not NFC Forum 1.x")
        }
        let declaredPages = Int(cc[2]) * 2
        let last = min(product.userPages.upperBound, 4 + declaredPages - 1)
        guard last >= 4 else { throw StorageCardError.malformedNDEF("the capability container declares no data area") }
        return 4...last
    }

    /// The NDEF message bytes in the NDEF TLV of the data area (empty for an empty TLV);
    /// decode them with `NDEFMessage(decoding:)`.
    ///
    /// - Throws: ``StorageCardError/malformedNDEF(_:)`` without a capability container, an NDEF
    ///   TLV, or with a TLV that runs past the area.
    public func readNDEFMessage() async throws -> [UInt8] {
        let pages = try await ndefAreaPages()
        let area = try await readPages(pages)
        guard let location = try ClassicNDEFArea.locateMessage(in: area) else {
            throw StorageCardError.malformedNDEF("no NDEF TLV in the data area")
        }
        return Array(area[location.offset..<location.offset + location.length])
    }

    /// Writes `message` (encoded NDEF) as the NDEF TLV with a Terminator, after any Lock or
    /// Memory Control TLVs before it. The TLV's length goes in last (written as 0 first), so a
    /// tag lifted mid-write holds an empty message, not a cut one. A tag whose capability
    /// container is still blank (an Ultralight EV1 from the factory) gets the product's CC first.
    ///
    /// - Throws: ``StorageCardError/ndefTooLarge(size:capacity:)`` before writing when the TLV
    ///   does not fit; ``StorageCardError/malformedNDEF(_:)`` for a read-only CC (access ≠ 00).
    public func writeNDEFMessage(_ message: [UInt8]) async throws {
        var cc = try await capabilityContainer()
        if cc == [0, 0, 0, 0] {
            cc = product.capabilityContainer
            try await write(page: 3, cc)
        }
        guard cc[3] == 0x00 else { throw StorageCardError.malformedNDEF("the capability container says read-only") }
        let pages = try await ndefAreaPages()
        let area = try await readPages(pages)
        // Keep the TLVs before the NDEF TLV (Lock and Memory Control) where they are.
        var start = 0
        if (try? ClassicNDEFArea.locateMessage(in: area)) != nil, let tlvStart = Self.ndefTLVStart(in: area) {
            start = tlvStart
        }
        let tlv = ClassicNDEFArea.tlvBytes(for: message)
        guard start + tlv.count <= area.count else {
            throw StorageCardError.ndefTooLarge(size: tlv.count, capacity: area.count - start)
        }
        let header = ClassicNDEFArea.header(length: message.count)
        var image = area
        image.replaceSubrange(start..<start + tlv.count, with: tlv)
        var emptied = image
        emptied.replaceSubrange(
            start..<start + header.count, with: header.count == 2 ? [0x03, 0x00] : [0x03, 0xFF, 0x00, 0x00])
        let first = start / 4
        let headerEnd = (start + header.count - 1) / 4
        let last = (start + tlv.count - 1) / 4
        for page in first...headerEnd { try await write(page: 4 + page, Array(emptied[page * 4..<page * 4 + 4])) }
        if headerEnd < last {
            for page in (headerEnd + 1)...last {
                try await write(page: 4 + page, Array(image[page * 4..<page * 4 + 4]))
            }
        }
        for page in first...headerEnd { try await write(page: 4 + page, Array(image[page * 4..<page * 4 + 4])) }
    }

    /// The offset of the NDEF TLV's T byte, walking NULL, Lock Control, Memory Control and
    /// Proprietary TLVs; nil when a Terminator or the end comes first.
    static func ndefTLVStart(in area: [UInt8]) -> Int? {
        var offset = 0
        while offset < area.count {
            switch area[offset] {
            case 0x00: offset += 1
            case 0xFE: return nil
            case 0x03: return offset
            default:
                guard offset + 1 < area.count else { return nil }
                var length = Int(area[offset + 1])
                var value = offset + 2
                if length == 0xFF {
                    guard offset + 3 < area.count else { return nil }
                    length = Int(area[offset + 2]) << 8 | Int(area[offset + 3])
                    value = offset + 4
                }
                offset = value + length
            }
        }
        return nil
    }
}
