import CardFlow
import Logging

/// A MIFARE Classic card through a PC/SC part 3 reader: keys into reader slots, authentication,
/// 16-byte blocks, trailers checked before they are written, value blocks, the MAD and NDEF.
///
/// The client speaks its reader family's dialect (``StorageReaderVariant``) and remembers which
/// sector is authenticated, refusing reads and writes elsewhere before anything is sent. APDUs
/// are logged at `trace`; key bytes never are.
///
/// ```swift
/// try await reader.withSession { session in
///     let card = try await ClassicClient.open(on: session)
///     try await card.authenticate(sector: 1, keyType: .a, key: .transport)
///     try await card.writeBlock(4, data: Array(repeating: 0x42, count: 16))
///     return try await card.readBlock(4)
/// }
/// ```
public actor ClassicClient {
    /// The channel to the card.
    public nonisolated let channel: any CardChannel
    /// The reader family's dialect.
    public nonisolated let variant: StorageReaderVariant
    /// The card's sectors and blocks.
    public nonisolated let layout: ClassicCardLayout
    private let logger: Logger
    /// The sector the card holds an authentication for, and with which key type.
    private var authenticated: (sector: Int, keyType: ClassicKeyType)?

    /// A client on `channel`.
    ///
    /// - Parameters:
    ///   - channel: the card (a CardFlow session, or anything that transmits APDUs).
    ///   - variant: the reader family's dialect; ``StorageReaderVariant/lookup(vendorID:productID:)``
    ///     finds it from the reader's USB IDs.
    ///   - layout: the card's layout (from its ATR: ``StorageCardKind/classicLayout``).
    ///   - logger: where APDUs go at `trace` (keys redacted).
    public init(
        channel: any CardChannel, variant: StorageReaderVariant, layout: ClassicCardLayout,
        logger: Logger = Logger(label: "cardflow.storagecards")
    ) {
        self.channel = channel
        self.variant = variant
        self.layout = layout
        self.logger = logger
    }

    /// A client for the card in `session`: the layout from its ATR, the dialect from the reader's
    /// USB vendor and product ID unless `variant` is given.
    ///
    /// - Throws: ``StorageCardError/notAClassicCard(_:)`` when the ATR names no MIFARE Classic.
    public static func open(
        on session: CardSession, variant: StorageReaderVariant? = nil,
        logger: Logger = Logger(label: "cardflow.storagecards")
    ) async throws(StorageCardError) -> ClassicClient {
        let atr = await session.identity.atr
        guard let kind = StorageCardKind(atr: atr) else { throw .notAClassicCard("ATR \(atr.spacedHexString)") }
        guard let layout = kind.classicLayout else { throw .notAClassicCard(kind.description) }
        let info = session.reader.info
        return ClassicClient(
            channel: session, variant: variant ?? .lookup(vendorID: info.vendorID, productID: info.productID),
            layout: layout, logger: logger)
    }

    // MARK: - Keys and authentication

    /// Loads `key` into the reader (LOAD KEYS). Identiv/SCM readers keep one key per key type and
    /// ignore `slot`; the others keep it in `slot`.
    ///
    /// - Parameters:
    ///   - key: the key (never logged).
    ///   - keyType: key A or B; Identiv/SCM readers address the key by it.
    ///   - slot: the reader key slot (ACS, OMNIKEY, generic).
    ///   - nonVolatile: keep the key across power-off, where the family can.
    public func loadKey(_ key: ClassicKey, keyType: ClassicKeyType, slot: UInt8 = 0, nonVolatile: Bool = false)
        async throws
    {
        let command = try variant.loadKeys(key, keyType: keyType, slot: slot, nonVolatile: nonVolatile)
        let response = try await exchange(command, operation: "load key")
        guard response.statusWord.isSuccess else {
            throw StorageCardError.commandFailed(
                instruction: command.ins, statusWord: response.statusWord,
                likelyCause: "the reader refused the key slot or memory (\(variant) dialect; "
                    + "readers of another family number their keys differently: name it with the variant)")
        }
    }

    /// Authenticates `block`'s sector with the key loaded for `keyType` (or in `slot`).
    ///
    /// - Throws: ``StorageCardError/authenticationFailed(block:keyType:statusWord:likelyCause:)``;
    ///   the card has then left the selected state: reconnect before the next try.
    public func authenticate(block: Int, keyType: ClassicKeyType, slot: UInt8 = 0) async throws {
        let sector = try self.sector(of: block)
        authenticated = nil
        let command = try variant.authenticate(block: block, keyType: keyType, slot: slot)
        let response = try await exchange(command, operation: "authenticate")
        guard response.statusWord.isSuccess else {
            let wrongKey: Set<UInt16> = [0x6300, 0x6988, 0x6982, 0x6986]
            throw StorageCardError.authenticationFailed(
                block: block, keyType: keyType, statusWord: response.statusWord,
                likelyCause: wrongKey.contains(response.statusWord.rawValue)
                    ? StorageCardError.wrongKeyOrSlot : "the reader refused the authentication")
        }
        authenticated = (sector, keyType)
    }

    /// Loads `key` (into a volatile slot where the family has them, else a non-volatile one) and
    /// authenticates `sector` with it.
    public func authenticate(sector: Int, keyType: ClassicKeyType, key: ClassicKey, slot: UInt8 = 0) async throws {
        guard (0..<layout.sectorCount).contains(sector) else {
            throw StorageCardError.invalidArgument("sector \(sector) is outside the card's \(layout.sectorCount)")
        }
        // Families without volatile slots (OMNIKEY) keep the key in a non-volatile one.
        let nonVolatile = variant.keyAddressing == .keySlot && variant.volatileKeySlots == nil
        try await loadKey(key, keyType: keyType, slot: slot, nonVolatile: nonVolatile)
        try await authenticate(block: layout.firstBlock(ofSector: sector), keyType: keyType, slot: slot)
    }

    /// The sector authenticated now, with its key type; nil after a failure or before any.
    public var authenticatedSector: (sector: Int, keyType: ClassicKeyType)? { authenticated }

    // MARK: - Blocks

    /// Reads one 16-byte block of the authenticated sector.
    public func readBlock(_ block: Int) async throws -> [UInt8] {
        try requireAuthentication(for: block)
        let command = try PCSCStorageCommand.readBinary(block: block)
        let response = try await exchange(command, operation: "read block \(block)")
        try checkOperation(response, command: command, block: block, what: "read")
        guard response.data.count == 16 else {
            throw StorageCardError.wrongBlockLength(block: block, length: response.data.count)
        }
        return response.data
    }

    /// Writes one 16-byte data block of the authenticated sector. Block 0 and sector trailers are
    /// refused before anything is sent (trailers: ``writeTrailer(_:sector:force:)``).
    public func writeBlock(_ block: Int, data: [UInt8]) async throws {
        guard data.count == 16 else {
            throw StorageCardError.invalidArgument("a block has 16 bytes, not \(data.count)")
        }
        _ = try sector(of: block)
        if block == 0 { throw StorageCardError.plainWriteRefused(block: 0, reason: "the manufacturer block") }
        if layout.isTrailer(block) {
            throw StorageCardError.plainWriteRefused(block: block, reason: "a sector trailer: use writeTrailer")
        }
        try await update(block, data: data, what: "write")
    }

    /// Writes `sector`'s trailer after checking it: a trailer after which no key could write the
    /// trailer again is refused unless `force`.
    ///
    /// - Throws: ``StorageCardError/trailerWouldLockSector(sector:)`` before anything is sent.
    public func writeTrailer(_ trailer: ClassicSectorTrailer, sector: Int, force: Bool = false) async throws {
        guard (0..<layout.sectorCount).contains(sector) else {
            throw StorageCardError.invalidArgument("sector \(sector) is outside the card's \(layout.sectorCount)")
        }
        if !force {
            do {
                try trailer.checkWritable()
            } catch {
                throw StorageCardError.trailerWouldLockSector(sector: sector)
            }
        }
        try await update(layout.trailerBlock(ofSector: sector), data: trailer.block, what: "write the trailer")
    }

    // MARK: - Value blocks

    /// The value of a value block: ACS `FF B1` where the family has it, else the block read and
    /// decoded (a malformed block is refused).
    public func readValue(block: Int) async throws -> Int32 {
        guard variant.valueBlockCommands else { return try await readValueBlock(block).value }
        try requireAuthentication(for: block)
        let command = try PCSCStorageCommand.readValue(block: block)
        let response = try await exchange(command, operation: "read value \(block)")
        try checkOperation(response, command: command, block: block, what: "read the value")
        guard response.data.count == 4 else {
            throw StorageCardError.unexpectedResponse(instruction: command.ins, length: response.data.count)
        }
        return Int32(bitPattern: response.data.reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
    }

    /// Reads and decodes a value block (value and address byte).
    ///
    /// - Throws: ``StorageCardError/notAValueBlock(block:)`` for a block whose copies disagree.
    public func readValueBlock(_ block: Int) async throws -> ClassicValueBlock {
        let bytes = try await readBlock(block)
        do {
            return try ClassicValueBlock(bytes: bytes)
        } catch {
            throw StorageCardError.notAValueBlock(block: block)
        }
    }

    /// Makes `block` a value block holding `value` (ACS store operation, else a write of the
    /// encoded block with the block number as address byte).
    public func writeValue(_ value: Int32, block: Int) async throws {
        if variant.valueBlockCommands {
            try await valueCommand(.store, block: block, value: value)
        } else {
            try await update(
                block, data: ClassicValueBlock(value: value, address: UInt8(truncatingIfNeeded: block)).bytes,
                what: "write the value")
        }
    }

    /// Adds `amount` to a value block and transfers the result to the same block.
    public func increment(block: Int, by amount: Int32) async throws {
        try await change(block: block, by: amount, operation: .increment)
    }

    /// Subtracts `amount` from a value block and transfers the result to the same block.
    ///
    /// Without the ACS value commands this is a read-modify-write: it needs write permission,
    /// which some access conditions (`001`) deny where they allow a decrement.
    public func decrement(block: Int, by amount: Int32) async throws {
        try await change(block: block, by: amount, operation: .decrement)
    }

    /// Copies value block `source` to `target` in the same sector (restore, then transfer).
    public func restore(from source: Int, to target: Int) async throws {
        guard try sector(of: source) == sector(of: target) else {
            throw StorageCardError.invalidArgument("restore copies within one sector: \(source) → \(target)")
        }
        if variant.valueBlockCommands {
            try requireAuthentication(for: source)
            let command = try PCSCStorageCommand.restoreValue(from: source, to: target)
            let response = try await exchange(command, operation: "restore value \(source) → \(target)")
            try checkOperation(response, command: command, block: source, what: "restore the value")
        } else {
            let value = try await readValueBlock(source)
            try await update(target, data: value.bytes, what: "write the restored value")
        }
    }

    // MARK: - Internals

    private func change(block: Int, by amount: Int32, operation: PCSCStorageCommand.ValueOperation) async throws {
        guard amount >= 0 else { throw StorageCardError.invalidArgument("value amounts are not negative: \(amount)") }
        if variant.valueBlockCommands {
            try await valueCommand(operation, block: block, value: amount)
            return
        }
        if variant.part3ValueOperations, try await part3ValueCommand(operation, block: block, amount: amount) {
            return
        }
        let current = try await readValueBlock(block)
        let (result, overflow) =
            operation == .increment
            ? current.value.addingReportingOverflow(amount) : current.value.subtractingReportingOverflow(amount)
        guard !overflow else {
            throw StorageCardError.invalidArgument("value \(current.value) with \(amount) leaves the Int32 range")
        }
        try await update(
            block, data: ClassicValueBlock(value: result, address: current.address).bytes, what: "write the value")
    }

    private func valueCommand(_ operation: PCSCStorageCommand.ValueOperation, block: Int, value: Int32) async throws {
        try requireValueBlockAddress(block)
        let command = try PCSCStorageCommand.valueOperation(operation, block: block, value: value)
        let response = try await exchange(command, operation: "value operation on block \(block)")
        try checkOperation(response, command: command, block: block, what: "\(operation)")
    }

    /// PC/SC part 3's increment/decrement; false when the reader does not know the command
    /// (`6A 81` function not supported, `6D 00`, `6E 00`, in its SW or its error-status object
    /// `C0 03 XX SW1 SW2`): then nothing was applied and the caller falls back.
    private func part3ValueCommand(_ operation: PCSCStorageCommand.ValueOperation, block: Int, amount: Int32)
        async throws -> Bool
    {
        try requireValueBlockAddress(block)
        let command = try PCSCStorageCommand.part3ValueOperation(operation, block: block, amount: amount)
        let response = try await exchange(command, operation: "part 3 \(operation) on block \(block)")
        let data = response.data
        let objectStatus: UInt16? =
            data.count >= 5 && data[0] == 0xC0 && data[1] == 0x03 ? UInt16(data[3]) << 8 | UInt16(data[4]) : nil
        let unsupported: Set<UInt16> = [0x6A81, 0x6D00, 0x6E00]
        if unsupported.contains(response.statusWord.rawValue) || objectStatus.map(unsupported.contains) == true {
            logger.debug("the reader has no PC/SC part 3 increment/decrement: read, change, write")
            return false
        }
        if response.statusWord.isSuccess, objectStatus == 0x9000 { return true }
        let refusal = objectStatus.map { StatusWord($0) } ?? response.statusWord
        let failed = ResponseAPDU(data: [], statusWord: refusal.isSuccess ? StatusWord(0x6F00) : refusal)
        try checkOperation(failed, command: command, block: block, what: "\(operation)")
        return true
    }

    /// A value operation's block: authenticated, and neither a trailer nor the manufacturer block.
    private func requireValueBlockAddress(_ block: Int) throws(StorageCardError) {
        try requireAuthentication(for: block)
        if layout.isTrailer(block) || block == 0 { throw .plainWriteRefused(block: block, reason: "no value block") }
    }

    private func update(_ block: Int, data: [UInt8], what: String) async throws {
        try requireAuthentication(for: block)
        let command = try PCSCStorageCommand.updateBinary(block: block, data: data)
        let response = try await exchange(command, operation: "\(what) (block \(block))")
        try checkOperation(response, command: command, block: block, what: what)
    }

    private func sector(of block: Int) throws(StorageCardError) -> Int {
        guard let sector = layout.sector(ofBlock: block) else {
            throw .blockOutOfRange(block: block, blockCount: layout.blockCount)
        }
        return sector
    }

    private func requireAuthentication(for block: Int) throws(StorageCardError) {
        let sector = try self.sector(of: block)
        guard authenticated?.sector == sector else { throw .notAuthenticated(block: block) }
    }

    /// A refused operation halts the card: the authentication is gone.
    private func checkOperation(_ response: ResponseAPDU, command: CommandAPDU, block: Int, what: String)
        throws(StorageCardError)
    {
        guard !response.statusWord.isSuccess else { return }
        let key = authenticated?.keyType.description ?? "the key used"
        authenticated = nil
        throw .operationRefused(
            instruction: command.ins, block: block, statusWord: response.statusWord,
            likelyCause: "the sector's access bits do not let \(key) \(what) block \(block)"
                + (what.contains("value") || what == "increment" || what == "decrement"
                    ? ", or it is no value block" : "")
                + (what.hasPrefix("write") ? Self.contentsUnknownAfterRefusedWrite : ""))
    }

    /// A refused write does not prove the block unchanged: a real ACR122U answered 63 00 to a
    /// write whose block then read back as zeros (Stack Overflow 56423316, replayed in
    /// `RecordedCardTests`).
    static let contentsUnknownAfterRefusedWrite =
        "; the block's contents are unknown now: authenticate again and read it back "
        + "(a write the reader reported as failed has been seen to change the block)"

    /// Sends one APDU: cancellation is checked first, the card leaving becomes
    /// ``StorageCardError/cardLost(_:operation:)``, and the exchange is logged at `trace` with
    /// LOAD KEYS data redacted.
    func exchange(_ command: CommandAPDU, operation: String) async throws -> ResponseAPDU {
        try Task.checkCancellation()
        let shown =
            command.ins == 0x82
            ? Array(command.encoded().prefix(5)).spacedHexString + " <key redacted>"
            : command.encoded().spacedHexString
        logger.trace("storage card command", metadata: ["apdu": "\(shown)", "operation": "\(operation)"])
        do {
            let response = try await channel.transmit(command)
            logger.trace("storage card answer", metadata: ["apdu": "\(response.encoded().spacedHexString)"])
            return response
        } catch let error where error.meansCardLost {
            authenticated = nil
            throw StorageCardError.cardLost(error.cardLoss ?? .notResponding, operation: operation)
        }
    }
}
