import CardFlow
import Logging

/// One kind of NDEF tag ``StorageNDEFTag/detect(on:variant:logger:)`` can open: which cards it
/// claims (by the card kind the ATR names) and how it opens them. A new tag kind is a new file
/// with a static opener plus one entry in ``byCardKind``.
public struct StorageNDEFTagOpener: Sendable {
    /// The kind's name in logs.
    public let name: String
    /// Whether a card of this kind (nil: the ATR names none) is this opener's.
    public let claims: @Sendable (StorageCardKind?) -> Bool
    /// Opens the tag in a session, with the reader dialect given (nil: from the USB IDs).
    public let open: @Sendable (CardSession, StorageReaderVariant?, Logger) async throws -> StorageNDEFTag

    /// An opener named `name`.
    public init(
        name: String, claims: @escaping @Sendable (StorageCardKind?) -> Bool,
        open: @escaping @Sendable (CardSession, StorageReaderVariant?, Logger) async throws -> StorageNDEFTag
    ) {
        self.name = name
        self.claims = claims
        self.open = open
    }

    /// The openers tried in order on the card kind of the ATR; a card none claims is opened by
    /// ``nfcForum``.
    public static let byCardKind: [StorageNDEFTagOpener] = [.felicaType3, .mifareClassic]
}
