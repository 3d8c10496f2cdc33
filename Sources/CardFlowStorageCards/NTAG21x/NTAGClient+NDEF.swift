import CardFlow
import CardFlowNDEF

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
        // Keep the TLVs before the NDEF TLV (Lock and Memory Control) where they are; an area
        // that does not parse is written from its start.
        var start = 0
        if (try? ClassicNDEFArea.locateMessage(in: area)) != nil, let present = try? Type2Tag.locateNDEF(in: area) {
            start = present.tlvOffset
        }
        let plan: Type2NDEFWrite
        do {
            plan = try Type2NDEFWrite(message: message, area: area, tlvStart: start)
        } catch {
            // The Terminator TLV is optional on a Type 2 tag (Type2NDEFWrite leaves it out when
            // the message fills the area): the TLV alone is what must fit.
            throw StorageCardError.ndefTooLarge(
                size: Type2Tag.ndefTLVHeaderCount(forLength: message.count) + message.count,
                capacity: area.count - start)
        }
        for write in plan.writes { try await self.write(page: 4 + write.page, write.bytes) }
    }
}
