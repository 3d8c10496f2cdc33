import CardFlow
import CardFlowNDEF
import Logging

/// An NDEF tag of any kind this package reads and writes: the NFC Forum Type 2, 4 and 5 tags of
/// the NDEF module (``/CardFlowNDEF/NDEFTag``), FeliCa Type 3 tags through ``FeliCaClient``, and
/// MIFARE Classic cards formatted for NDEF (MAD + NDEF sectors, NXP AN1304) through
/// ``ClassicClient``. The card's ATR decides (``StorageNDEFTagOpener/byCardKind``); a card
/// no opener claims goes to `NDEFTag.detect(on:)`.
///
/// ```swift
/// let bytes = try await reader.withSession { session in
///     try await StorageNDEFTag.detect(on: session).readMessageBytes()
/// }
/// ```
public struct StorageNDEFTag: Sendable {
    /// What the tag is, for messages and logs ("NFC Forum Type 2", "MIFARE Classic 1K (MAD, NDEF
    /// sectors)", "FeliCa Type 3").
    public let kind: String
    private let read: @Sendable () async throws -> [UInt8]
    private let write: @Sendable ([UInt8]) async throws -> Void

    /// A tag of `kind` that reads and writes its message with `read` and `write`.
    public init(
        kind: String, read: @escaping @Sendable () async throws -> [UInt8],
        write: @escaping @Sendable ([UInt8]) async throws -> Void
    ) {
        self.kind = kind
        self.read = read
        self.write = write
    }

    /// The tag in `session`.
    ///
    /// - Parameters:
    ///   - session: the card's session.
    ///   - variant: the reader dialect for the cards that need one (FeliCa, MIFARE Classic);
    ///     nil looks it up from the reader's USB IDs.
    ///   - logger: where the clients log their APDUs at `trace`.
    /// - Throws: the opener's errors: ``FeliCaClient/open(on:variant:logger:)``'s for a FeliCa
    ///   card, ``StorageCardError/notAClassicCard(_:)`` and the MAD's errors at the first read
    ///   for MIFARE Classic, `NDEFTag.detect(on:)`'s otherwise.
    public static func detect(
        on session: CardSession, variant: StorageReaderVariant? = nil,
        logger: Logger = Logger(label: "cardflow.storagecards")
    ) async throws -> StorageNDEFTag {
        let cardKind = StorageCardKind(atr: await session.identity.atr)
        let opener = StorageNDEFTagOpener.byCardKind.first { $0.claims(cardKind) } ?? .nfcForum
        logger.debug("NDEF tag opened as \(opener.name)")
        return try await opener.open(session, variant, logger)
    }

    /// The NDEF message bytes (empty for an empty message).
    public func readMessageBytes() async throws -> [UInt8] { try await read() }

    /// Writes `message` (encoded NDEF).
    public func writeMessageBytes(_ message: [UInt8]) async throws { try await write(message) }
}
