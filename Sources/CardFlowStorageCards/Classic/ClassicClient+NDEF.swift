import CardFlow
import CardFlowNDEF

extension ClassicClient {
    /// Reads the MAD: sector 0 with the public MAD key A, and on a 4K card whose sector 0 trailer
    /// announces MAD2 (GPB bits 0–1 = 2), sector 16 too.
    ///
    /// - Throws: ``StorageCardError/malformedMAD(_:)`` for a CRC that does not match.
    public func readMAD(keyA: ClassicKey = .madKeyA, slot: UInt8 = 0) async throws -> ClassicMAD {
        try await authenticate(sector: 0, keyType: .a, key: keyA, slot: slot)
        let sector0 = try await readBlock(1) + readBlock(2)
        guard layout == .fourK else { return try ClassicMAD(sector0: sector0) }
        let generalPurposeByte = try await readBlock(3)[9]
        guard generalPurposeByte & 0x03 == 2 else { return try ClassicMAD(sector0: sector0) }
        try await authenticate(sector: 16, keyType: .a, key: keyA, slot: slot)
        let sector16 = try await readBlock(64) + readBlock(65) + readBlock(66)
        return try ClassicMAD(sector0: sector0, sector16: sector16)
    }

    /// The NDEF message bytes: the MAD's `E1 03` sectors read with the public NDEF key A, up to
    /// the end of the NDEF TLV.
    ///
    /// - Throws: ``StorageCardError/malformedNDEF(_:)`` when the MAD lists no NDEF sector or the
    ///   TLVs do not decode.
    public func readNDEF(keyA: ClassicKey = .ndefKeyA, slot: UInt8 = 0) async throws -> [UInt8] {
        let sectors = try await readMAD(slot: slot).sectors(for: .ndef)
        guard !sectors.isEmpty else { throw StorageCardError.malformedNDEF("the MAD lists no NDEF sector") }
        var area: [UInt8] = []
        for (index, sector) in sectors.enumerated() {
            try await authenticate(sector: sector, keyType: .a, key: keyA, slot: slot)
            for block in layout.dataBlocks(ofSector: sector) {
                area += try await readBlock(block)
            }
            // Stop as soon as the TLV is complete; a TLV running past what was read so far needs
            // the next sector.
            if index < sectors.count - 1, (try? ClassicNDEFArea.locateMessage(in: area)) != nil {
                break
            }
        }
        return try ClassicNDEFArea.message(in: area)
    }

    /// The NDEF message, decoded with the NDEF target's codec.
    public func readNDEFMessage(keyA: ClassicKey = .ndefKeyA, slot: UInt8 = 0) async throws -> NDEFMessage {
        try NDEFMessage(decoding: try await readNDEF(keyA: keyA, slot: slot))
    }

    /// Writes `message` as the NDEF TLV across the MAD's `E1 03` sectors, authenticated with the
    /// public NDEF key A. The first block first gets an empty NDEF TLV and its real length last,
    /// so a card lifted mid-write holds an empty message rather than a cut one.
    ///
    /// - Throws: ``StorageCardError/ndefTooLarge(size:capacity:)`` before anything is written.
    public func writeNDEF(_ message: [UInt8], keyA: ClassicKey = .ndefKeyA, slot: UInt8 = 0) async throws {
        let sectors = try await readMAD(slot: slot).sectors(for: .ndef)
        let blocks = sectors.flatMap { layout.dataBlocks(ofSector: $0) }
        let tlv = ClassicNDEFArea.tlvBytes(for: message)
        guard tlv.count <= blocks.count * 16, let first = blocks.first else {
            throw StorageCardError.ndefTooLarge(size: tlv.count, capacity: blocks.count * 16)
        }
        let padded = tlv + [UInt8](repeating: 0, count: (16 - tlv.count % 16) % 16)
        let chunks = stride(from: 0, to: padded.count, by: 16).map { Array(padded[$0..<$0 + 16]) }
        let empty = [0x03, 0x00, 0xFE] + [UInt8](repeating: 0, count: 13)
        let writes =
            [(first, empty)] + chunks.enumerated().dropFirst().map { (blocks[$0.offset], $0.element) } + [
                (first, chunks[0])
            ]
        var current: Int?
        for (block, data) in writes {
            let sector = layout.sector(ofBlock: block) ?? 0
            if current != sector {
                try await authenticate(sector: sector, keyType: .a, key: keyA, slot: slot)
                current = sector
            }
            try await writeBlock(block, data: data)
        }
    }

    /// Encodes `message` with the NDEF target's codec and writes it (see ``writeNDEF(_:keyA:slot:)``).
    public func writeNDEFMessage(_ message: NDEFMessage, keyA: ClassicKey = .ndefKeyA, slot: UInt8 = 0) async throws {
        try await writeNDEF(try message.encoded(), keyA: keyA, slot: slot)
    }

    /// Formats a card in transport configuration for NDEF (AN1304): the MAD (version 1, or 2 on a
    /// 4K card) lists every other sector as `E1 03`; sector 0's trailer gets the MAD key A, access
    /// bits `78 77 88` and GPB `C1`/`C2`; every NDEF sector's trailer gets the NDEF key A, access
    /// bits `7F 07 88`, GPB `40`; all with `keyB`. The first NDEF block gets an empty NDEF TLV.
    ///
    /// - Parameters:
    ///   - currentKeyA: the sectors' key A now (the transport key by default).
    ///   - keyB: the new key B of every sector; keep it secret, it can change the trailers.
    ///   - slot: the reader key slot the keys are loaded into.
    /// - Throws: ``StorageCardError/authenticationFailed(block:keyType:statusWord:likelyCause:)``
    ///   when a sector does not open with `currentKeyA`; every sector the format touches is
    ///   authenticated before the first write, so such a card is left as it was (never with a
    ///   MAD that claims sectors that were not formatted). Reconnect before the next try.
    public func formatForNDEF(currentKeyA: ClassicKey = .transport, keyB: ClassicKey, slot: UInt8 = 0) async throws {
        var mad = try ClassicMAD(version: layout == .fourK ? 2 : 1)
        // Info byte 01, as the NFC-formatted card dumps in libfreefare's MAD tests have it.
        mad.infoByte = 0x01
        let ndefSectors = (1..<layout.sectorCount).filter { $0 != 16 }
        for sector in ndefSectors { try mad.setApplication(.ndef, ofSector: sector) }
        let madSectors = mad.sector16Bytes == nil ? [0] : [0, 16]
        for sector in madSectors + ndefSectors {
            try await authenticate(sector: sector, keyType: .a, key: currentKeyA, slot: slot)
        }

        try await authenticate(sector: 0, keyType: .a, key: currentKeyA, slot: slot)
        let sector0 = mad.sector0Bytes
        try await writeBlock(1, data: Array(sector0[0..<16]))
        try await writeBlock(2, data: Array(sector0[16..<32]))
        let madTrailer = ClassicSectorTrailer(
            keyA: .madKeyA, accessBits: .madSector, generalPurposeByte: mad.generalPurposeByte, keyB: keyB)
        try await writeTrailer(madTrailer, sector: 0)
        if let sector16 = mad.sector16Bytes {
            try await authenticate(sector: 16, keyType: .a, key: currentKeyA, slot: slot)
            for (index, block) in [64, 65, 66].enumerated() {
                try await writeBlock(block, data: Array(sector16[index * 16..<(index + 1) * 16]))
            }
            try await writeTrailer(madTrailer, sector: 16)
        }
        let ndefTrailer = ClassicSectorTrailer(
            keyA: .ndefKeyA, accessBits: .ndefReadWrite, generalPurposeByte: ClassicNDEFArea.generalPurposeByte,
            keyB: keyB)
        for sector in ndefSectors {
            try await authenticate(sector: sector, keyType: .a, key: currentKeyA, slot: slot)
            if sector == ndefSectors.first {
                try await writeBlock(
                    layout.firstBlock(ofSector: sector),
                    data: [0x03, 0x00, 0xFE] + [UInt8](repeating: 0, count: 13))
            }
            try await writeTrailer(ndefTrailer, sector: sector)
        }
    }
}
