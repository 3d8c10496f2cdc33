import CardFlow

/// The status a uFR reader reports for a DESFire command it ran itself (RSP_EXT bytes 0–1,
/// little-endian; ufr.md §5): 3001 for success, the reader's own codes around it, and
/// `0x0C00 | s` for a DESFire status byte `s` the card answered.
///
/// ```swift
/// UFRDESFireStatus(rawValue: 0x0CA0).cardStatus   // 0xA0, application not found
/// ```
public struct UFRDESFireStatus: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt16

    /// The status `rawValue`.
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// DATA_OVERFLOW (2990).
    public static let dataOverflow = Self(rawValue: 2990)
    /// READER_ERROR (2999).
    public static let readerError = Self(rawValue: 2999)
    /// NO_CARD_DETECTED (3000).
    public static let noCardDetected = Self(rawValue: 3000)
    /// CARD_OPERATION_OK (3001).
    public static let ok = Self(rawValue: 3001)
    /// WRONG_KEY_TYPE (3002).
    public static let wrongKeyType = Self(rawValue: 3002)
    /// KEY_AUTH_ERROR (3003): the authentication with the key failed.
    public static let keyAuthenticationError = Self(rawValue: 3003)
    /// CARD_CRYPTO_ERROR (3004).
    public static let cardCryptoError = Self(rawValue: 3004)
    /// READER_CARD_COMM_ERROR (3005): the card stopped answering the reader.
    public static let readerCardCommunicationError = Self(rawValue: 3005)
    /// PC_READER_COMM_ERROR (3006).
    public static let hostReaderCommunicationError = Self(rawValue: 3006)
    /// COMMIT_TRANSACTION_NO_REPLY (3007).
    public static let commitTransactionNoReply = Self(rawValue: 3007)
    /// COMMIT_TRANSACTION_ERROR (3008).
    public static let commitTransactionError = Self(rawValue: 3008)
    /// NO_ISO1444_4_CARD (3009): the card in the field is not a DESFire card.
    public static let noISO14443Layer4Card = Self(rawValue: 3009)
    /// NOT_SUPPORTED_KEY_TYPE (3010).
    public static let notSupportedKeyType = Self(rawValue: 3010)

    /// The DESFire status byte the card answered (`0x0C00 | s`), nil for the reader's own codes.
    public var cardStatus: UInt8? {
        rawValue & 0xFF00 == 0x0C00 ? UInt8(truncatingIfNeeded: rawValue) : nil
    }

    /// The status's name from the protocol's appendix, or the DESFire name of a card status.
    public var name: String? {
        if let cardStatus { return Self.cardStatusNames[cardStatus].map { "card: \($0)" } }
        return Self.readerNames[rawValue]
    }

    public var description: String {
        let number = cardStatus.map { "0x0C" + [$0].spacedHexString } ?? "\(rawValue)"
        return name.map { "\($0) (\(number))" } ?? "status \(number)"
    }

    private static let readerNames: [UInt16: String] = [
        2990: "DATA_OVERFLOW", 2999: "READER_ERROR", 3000: "NO_CARD_DETECTED", 3001: "CARD_OPERATION_OK",
        3002: "WRONG_KEY_TYPE", 3003: "KEY_AUTH_ERROR", 3004: "CARD_CRYPTO_ERROR", 3005: "READER_CARD_COMM_ERROR",
        3006: "PC_READER_COMM_ERROR", 3007: "COMMIT_TRANSACTION_NO_REPLY", 3008: "COMMIT_TRANSACTION_ERROR",
        3009: "NO_ISO1444_4_CARD", 3010: "NOT_SUPPORTED_KEY_TYPE",
    ]

    private static let cardStatusNames: [UInt8: String] = [
        0x0C: "no changes", 0x0E: "out of EEPROM", 0x1C: "illegal command", 0x1E: "integrity error",
        0x40: "no such key", 0x7E: "length error", 0x9D: "permission denied", 0x9E: "parameter error",
        0xA0: "application not found", 0xAE: "authentication error", 0xAF: "additional frame",
        0xBE: "boundary error", 0xCA: "command aborted", 0xDE: "duplicate", 0xF0: "file not found",
    ]
}
