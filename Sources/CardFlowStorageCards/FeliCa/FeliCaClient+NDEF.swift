import CardFlow

extension FeliCaClient {
    /// The Type 3 attribute information block (block 0 of the NDEF service `000B`).
    ///
    /// - Throws: ``StorageCardError/malformedNDEF(_:)`` when block 0 is no valid attribute
    ///   block (an unformatted card fails the checksum).
    public func ndefAttributes() async throws -> Type3AttributeBlock {
        try Type3AttributeBlock(bytes: try await read(block: 0))
    }

    /// The NDEF message bytes (Ln bytes from block 1); decode them with `NDEFMessage(decoding:)`.
    ///
    /// - Throws: ``StorageCardError/ndefWriteInterrupted`` when WriteF says a write did not
    ///   finish (the card left mid-write: the data is not a message); the errors of
    ///   ``ndefAttributes()``.
    public func readNDEFMessage() async throws -> [UInt8] {
        let attributes = try await ndefAttributes()
        guard !attributes.writeInProgress else { throw StorageCardError.ndefWriteInterrupted }
        guard attributes.length > 0 else { return [] }
        let blockCount = (attributes.length + 15) / 16
        // Nbr may be lower than what the IC takes: honour the smaller.
        let perRead = max(1, min(attributes.blocksPerRead, product.readBlockLimit))
        var data: [UInt8] = []
        for first in stride(from: 1, through: blockCount, by: perRead) {
            data += try await read(blocks: Array(first...min(blockCount, first + perRead - 1)))
        }
        return Array(data.prefix(attributes.length))
    }

    /// Writes `message` (encoded NDEF): WriteF `0F` in the attribute block first, the data
    /// blocks (the last padded with zeros), then the attribute block with the new Ln and WriteF
    /// `00`. A card lifted anywhere in between reads as ``StorageCardError/ndefWriteInterrupted``
    /// until written again; writing again is always safe.
    ///
    /// - Throws: ``StorageCardError/ndefTooLarge(size:capacity:)`` before writing when the
    ///   message does not fit NmaxB blocks; ``StorageCardError/malformedNDEF(_:)`` for a
    ///   read-only attribute block (RWFlag `00`) or none.
    public func writeNDEFMessage(_ message: [UInt8]) async throws {
        var attributes = try await ndefAttributes()
        guard attributes.writable else { throw StorageCardError.malformedNDEF("the attribute block says read-only") }
        guard message.count <= attributes.capacity else {
            throw StorageCardError.ndefTooLarge(size: message.count, capacity: attributes.capacity)
        }
        attributes.writeInProgress = true
        try await write(block: 0, attributes.encoded())
        let blockCount = (message.count + 15) / 16
        for index in 0..<blockCount {
            var block = Array(message[(index * 16)..<min(message.count, index * 16 + 16)])
            block += [UInt8](repeating: 0, count: 16 - block.count)
            try await write(block: 1 + index, block)
        }
        attributes.writeInProgress = false
        attributes.length = message.count
        try await write(block: 0, attributes.encoded())
    }

    /// Formats a FeliCa Lite / Lite-S for NDEF: turns NDEF on in the memory configuration
    /// (MC_SYS_OP bit 0) when it is off, then writes an attribute block with Nbr 4, Nbw 1 and
    /// NmaxB the writable user blocks after S_PAD0, and an empty message. An existing message is
    /// gone afterwards (Ln 0).
    ///
    /// - Returns: the attribute block written.
    /// - Throws: ``StorageCardError/unsupportedByFeliCaProduct(product:what:)`` on another IC;
    ///   ``StorageCardError/malformedNDEF(_:)`` when S_PAD0 is read-only, or NDEF is off and the
    ///   system blocks are frozen (MC_ALL `00`: this card can no longer take NDEF).
    @discardableResult
    public func formatNDEF() async throws -> Type3AttributeBlock {
        var configuration = try await memoryConfiguration()
        guard configuration.isWritable(block: 0) else {
            throw StorageCardError.malformedNDEF("S_PAD0, the attribute block, is read-only")
        }
        if !configuration.ndefEnabled {
            guard configuration.systemBlocksWritable else {
                throw StorageCardError.malformedNDEF("NDEF is off and the memory configuration is frozen (MC_ALL 00)")
            }
            configuration.ndefEnabled = true
            try await write(block: FeliCaLiteMemoryConfiguration.block, configuration.bytes)
        }
        let attributes = Type3AttributeBlock(
            blocksPerRead: product.readBlockLimit, blocksPerWrite: product.writeBlockLimit,
            maximumBlocks: configuration.consecutiveWritableBlocksAfterAttributeBlock)
        try await write(block: 0, attributes.encoded())
        return attributes
    }
}
