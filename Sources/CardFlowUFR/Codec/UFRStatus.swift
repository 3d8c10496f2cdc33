import CardFlow

/// A uFR COM error code, byte 1 of an ERR packet (`EC code CE …`), with the codes of the
/// protocol's appendix named. Codes the appendix gives two names (0x7D) are named by the COM
/// protocol document; unknown codes keep their number.
///
/// ```swift
/// UFRStatus(rawValue: 0x08) == .noCard   // true
/// ```
public struct UFRStatus: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt8

    /// The code `rawValue`.
    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// COMMUNICATION_ERROR (0x01).
    public static let communicationError = Self(rawValue: 0x01)
    /// CHKSUM_ERROR (0x02): the reader got a frame with a bad checksum.
    public static let checksumError = Self(rawValue: 0x02)
    /// BUFFER_OVERFLOW (0x05).
    public static let bufferOverflow = Self(rawValue: 0x05)
    /// MAX_KEY_INDEX_EXCEEDED (0x07): a key slot beyond the reader's.
    public static let maxKeyIndexExceeded = Self(rawValue: 0x07)
    /// NO_CARD (0x08): no card in the field.
    public static let noCard = Self(rawValue: 0x08)
    /// COMMAND_NOT_SUPPORTED (0x09).
    public static let commandNotSupported = Self(rawValue: 0x09)
    /// PARAMETERS_ERROR (0x0F).
    public static let parametersError = Self(rawValue: 0x0F)
    /// UNSUPPORTED_CARD_TYPE (0x11).
    public static let unsupportedCardType = Self(rawValue: 0x11)
    /// KEYS_LOCKED (0x76): the reader's keys are locked with a password.
    public static let keysLocked = Self(rawValue: 0x76)
    /// UFR_APDU_TRANSCEIVE_ERROR (0xAE): listed among the API's APDU statuses; whether the
    /// firmware sends it in an ERR packet is not documented.
    public static let apduTransceiveError = Self(rawValue: 0xAE)

    private static let names: [UInt8: String] = [
        0x00: "OK", 0x01: "COMMUNICATION_ERROR", 0x02: "CHKSUM_ERROR", 0x03: "READING_ERROR",
        0x04: "WRITING_ERROR", 0x05: "BUFFER_OVERFLOW", 0x06: "MAX_ADDRESS_EXCEEDED", 0x07: "MAX_KEY_INDEX_EXCEEDED",
        0x08: "NO_CARD", 0x09: "COMMAND_NOT_SUPPORTED", 0x0A: "FORBIDEN_DIRECT_WRITE_IN_SECTOR_TRAILER",
        0x0B: "ADDRESSED_BLOCK_IS_NOT_SECTOR_TRAILER", 0x0C: "WRONG_ADDRESS_MODE", 0x0D: "WRONG_ACCESS_BITS_VALUES",
        0x0E: "AUTH_ERROR", 0x0F: "PARAMETERS_ERROR", 0x10: "MAX_SIZE_EXCEEDED", 0x11: "UNSUPPORTED_CARD_TYPE",
        0x12: "COUNTER_ERROR", 0x70: "WRITE_VERIFICATION_ERROR", 0x71: "BUFFER_SIZE_EXCEEDED",
        0x72: "VALUE_BLOCK_INVALID", 0x73: "VALUE_BLOCK_ADDR_INVALID", 0x74: "VALUE_BLOCK_MANIPULATION_ERROR",
        0x75: "WRONG_UI_MODE", 0x76: "KEYS_LOCKED", 0x77: "KEYS_UNLOCKED", 0x78: "WRONG_PASSWORD",
        0x79: "CAN_NOT_LOCK_DEVICE", 0x7A: "CAN_NOT_UNLOCK_DEVICE", 0x7B: "DEVICE_EEPROM_BUSY",
        0x7C: "RTC_SET_ERROR", 0x7D: "EEPROM_ERROR", 0x7E: "NO_CARDS_ENUMERATED", 0x7F: "CARD_ALREADY_SELECTED",
        0x80: "WRONG_CARD_TYPE", 0x90: "FORBIDDEN_IN_TAG_EMULATION_MODE", 0xAE: "UFR_APDU_TRANSCEIVE_ERROR",
    ]

    /// The protocol's name for the code, nil for codes this backend does not know.
    public var name: String? { Self.names[rawValue] }

    public var description: String {
        let hex = [rawValue].spacedHexString
        return name.map { "\($0) (\(hex))" } ?? "uFR error \(hex)"
    }
}
