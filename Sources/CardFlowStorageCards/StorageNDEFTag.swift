import CardFlow
import CardFlowNDEF
import Logging

/// An NDEF tag of any kind this package reads and writes without keys: the NFC Forum Type 2, 4
/// and 5 tags of the NDEF module (``/CardFlowNDEF/NDEFTag``), and FeliCa Type 3 tags through
/// ``FeliCaClient``. The card's ATR decides: PC/SC part 3 card name `00 3B` (FeliCa) is Type
/// 3, anything else goes to `NDEFTag.detect(on:)`.
///
/// ```swift
/// let bytes = try await reader.withSession { session in
///     try await StorageNDEFTag.detect(on: session).readMessageBytes()
/// }
/// ```
public enum StorageNDEFTag: Sendable {
    case nfcForum(NDEFTag)
    case type3(FeliCaClient)

    /// The tag in `session`.
    ///
    /// - Throws: the errors of ``FeliCaClient/open(on:variant:logger:)`` for a FeliCa card, of
    ///   `NDEFTag.detect(on:)` otherwise.
    public static func detect(
        on session: CardSession, logger: Logger = Logger(label: "cardflow.storagecards")
    ) async throws -> StorageNDEFTag {
        if StorageCardKind(atr: await session.identity.atr) == .felica {
            return .type3(try await FeliCaClient.open(on: session, logger: logger))
        }
        return .nfcForum(try await NDEFTag.detect(on: session))
    }

    /// The NDEF message bytes.
    public func readMessageBytes() async throws -> [UInt8] {
        switch self {
        case .nfcForum(let tag): return try await tag.readMessageBytes()
        case .type3(let card):
            let bytes = try await card.readNDEFMessage()
            try await card.finish()
            return bytes
        }
    }

    /// Writes `message` (encoded NDEF).
    public func writeMessageBytes(_ message: [UInt8]) async throws {
        switch self {
        case .nfcForum(let tag): try await tag.writeMessageBytes(message)
        case .type3(let card):
            try await card.writeNDEFMessage(message)
            try await card.finish()
        }
    }
}
