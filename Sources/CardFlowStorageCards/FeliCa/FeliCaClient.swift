import CardFlow
import Logging

/// A FeliCa card (NFC-F) through a PC/SC reader: Polling, Read Without Encryption and Write
/// Without Encryption as raw frames through the reader's pass-through, the FeliCa Lite / Lite-S
/// memory configuration, and NDEF on Type 3 tags (``readNDEFMessage()``,
/// ``writeNDEFMessage(_:)``, ``formatNDEF()``).
///
/// PC/SC part 3 has no FeliCa block commands every reader shares, so every command goes as a
/// FeliCa frame (`LEN CODE IDm …`) on the route of ``StorageReaderVariant/rawFrameRoute``: the
/// ACS direct transmit on ACR1252U/ACR1255U (the ACR1252U manual's FeliCa examples), a PN532
/// InCommunicateThru on ACR122U, the part 3 transparent exchange elsewhere. Commands carry the
/// IDm the last Polling returned; a card that does not answer is
/// ``StorageCardError/rfNoAnswer(command:route:)``, and a status the card reports is
/// ``StorageCardError/feliCaStatus(command:flag1:flag2:likelyCause:)`` with the flags.
///
/// Reads are split into as many commands as the product takes blocks per read (four on Lite
/// and Lite-S); writes go one block per command.
///
/// ```swift
/// try await reader.withSession { session in
///     let card = try await FeliCaClient.open(on: session)
///     let blocks = try await card.read(blocks: Array(0...3))      // S_PAD0–3, 64 bytes
///     try await card.write(block: 1, [UInt8](repeating: 0xAB, count: 16))
///     try await card.finish()
/// }
/// ```
public actor FeliCaClient {
    /// The channel to the card.
    public nonisolated let channel: any CardChannel
    /// The reader family's dialect.
    public nonisolated let variant: StorageReaderVariant
    /// The raw-frame pass-through on `channel`.
    public nonisolated let transport: StorageRawFrameTransport
    private let logger: Logger
    /// What the last Polling returned: the IDm every command carries, the PMm.
    public private(set) var polled: FeliCaPollingAnswer

    /// A client for a card whose Polling answer is known.
    public init(
        channel: any CardChannel, variant: StorageReaderVariant, polled: FeliCaPollingAnswer,
        logger: Logger = Logger(label: "cardflow.storagecards")
    ) {
        self.init(
            transport: StorageRawFrameTransport(channel: channel, route: variant.rawFrameRoute, logger: logger),
            variant: variant, polled: polled, logger: logger)
    }

    /// A client on a transport that already carried the Polling (its session stays open).
    private init(
        transport: StorageRawFrameTransport, variant: StorageReaderVariant, polled: FeliCaPollingAnswer, logger: Logger
    ) {
        channel = transport.channel
        self.variant = variant
        self.polled = polled
        self.logger = logger
        self.transport = transport
    }

    /// A client for the card in `session`: the ATR must name FeliCa (PC/SC part 3 card name
    /// `00 3B`), a Polling for any system code (`FFFF`, request code 01) gives the IDm, the PMm
    /// and the system code; the dialect comes from the reader's USB IDs unless `variant` is
    /// given.
    ///
    /// - Throws: ``StorageCardError/notAFeliCaCard(_:)`` for another ATR;
    ///   ``StorageCardError/rfNoAnswer(command:route:)`` when nothing answers the Polling.
    public static func open(
        on session: CardSession, variant: StorageReaderVariant? = nil,
        logger: Logger = Logger(label: "cardflow.storagecards")
    ) async throws -> FeliCaClient {
        let atr = await session.identity.atr
        guard let kind = StorageCardKind(atr: atr) else {
            throw StorageCardError.notAFeliCaCard("ATR \(atr.spacedHexString)")
        }
        guard kind == .felica else { throw StorageCardError.notAFeliCaCard(kind.description) }
        let info = session.reader.info
        let variant = variant ?? .lookup(vendorID: info.vendorID, productID: info.productID)
        let transport = StorageRawFrameTransport(channel: session, route: variant.rawFrameRoute, logger: logger)
        let polled = try await poll(transport, systemCode: FeliCaSystemCode.wildcard, requestCode: .systemCode)
        // The client keeps the Polling's transport: its part 3 session stays open for the commands after.
        return FeliCaClient(transport: transport, variant: variant, polled: polled, logger: logger)
    }

    /// The product PMm names.
    public var product: FeliCaProduct { FeliCaProduct(pmm: polled.pmm) }

    /// The IDm commands carry.
    public var idm: [UInt8] { polled.idm }

    /// Polling: wakes the card of `systemCode` and takes its IDm for the commands after.
    ///
    /// - Throws: ``StorageCardError/rfNoAnswer(command:route:)`` when no card of that system
    ///   answers (a Lite-S without NDEF does not answer `12FC`).
    @discardableResult
    public func poll(
        systemCode: UInt16 = FeliCaSystemCode.wildcard, requestCode: FeliCaFrame.RequestCode = .systemCode
    ) async throws -> FeliCaPollingAnswer {
        let answer = try await Self.poll(transport, systemCode: systemCode, requestCode: requestCode)
        polled = answer
        return answer
    }

    private static func poll(
        _ transport: StorageRawFrameTransport, systemCode: UInt16, requestCode: FeliCaFrame.RequestCode
    ) async throws -> FeliCaPollingAnswer {
        let frame = FeliCaFrame.polling(systemCode: systemCode, requestCode: requestCode)
        return try FeliCaFrame.pollingAnswer(try await transport.transceive(frame, command: 0x00))
    }

    /// Reads `blocks` (16 bytes each, in order) through `service`, as many per command as the
    /// product takes.
    ///
    /// - Throws: ``StorageCardError/invalidArgument(_:)`` for no block;
    ///   ``StorageCardError/feliCaStatus(command:flag1:flag2:likelyCause:)`` for a block the
    ///   card refuses (`A8`: not on the card; `B1`: needs authentication).
    public func read(blocks: [Int], service: FeliCaServiceCode = .liteReadOnly) async throws -> [UInt8] {
        guard !blocks.isEmpty else { throw StorageCardError.invalidArgument("no block to read") }
        var data: [UInt8] = []
        data.reserveCapacity(blocks.count * 16)
        var start = 0
        while start < blocks.count {
            let chunk = Array(blocks[start..<min(blocks.count, start + product.readBlockLimit)])
            let frame = try FeliCaFrame.readWithoutEncryption(idm: idm, service: service, blocks: chunk)
            let answer = try await transport.transceive(frame, command: 0x06)
            data += try FeliCaFrame.readAnswer(answer, idm: idm, blockCount: chunk.count)
            start += chunk.count
        }
        return data
    }

    /// Reads one block.
    public func read(block: Int, service: FeliCaServiceCode = .liteReadOnly) async throws -> [UInt8] {
        try await read(blocks: [block], service: service)
    }

    /// Writes one 16-byte block through `service`.
    ///
    /// - Throws: ``StorageCardError/invalidArgument(_:)`` for data that is not 16 bytes (nothing
    ///   sent); ``StorageCardError/feliCaStatus(command:flag1:flag2:likelyCause:)`` when the card
    ///   refuses (`A8`: a read-only or missing block).
    public func write(block: Int, _ data: [UInt8], service: FeliCaServiceCode = .liteReadWrite) async throws {
        let frame = try FeliCaFrame.writeWithoutEncryption(idm: idm, service: service, blocks: [block], data: data)
        try FeliCaFrame.writeAnswer(try await transport.transceive(frame, command: 0x08), idm: idm)
    }

    /// The Lite / Lite-S memory configuration block (`88`).
    ///
    /// - Throws: ``StorageCardError/unsupportedByFeliCaProduct(product:what:)`` on another IC.
    public func memoryConfiguration() async throws -> FeliCaLiteMemoryConfiguration {
        guard product.hasLiteMemoryMap else {
            throw StorageCardError.unsupportedByFeliCaProduct(product: product, what: "the Lite memory configuration")
        }
        return try FeliCaLiteMemoryConfiguration(bytes: try await read(block: FeliCaLiteMemoryConfiguration.block))
    }

    /// Ends the reader's transparent session, if one is open (part 3 route). Call it before the
    /// session with the card ends.
    public func finish() async throws {
        try await transport.endSession()
    }
}
