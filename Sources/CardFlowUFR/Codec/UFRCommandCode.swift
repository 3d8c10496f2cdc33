import CardFlow

/// A uFR COM command code (byte 1 of a command packet), with the codes this backend sends named.
///
/// ```swift
/// UFRCommandCode.getCardIDEx.rawValue   // 0x2C
/// ```
public struct UFRCommandCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt8

    /// The code `rawValue`.
    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// GET_READER_TYPE (0x10): the reader type, uint32 LE in the RSP_EXT.
    public static let getReaderType = Self(rawValue: 0x10)
    /// GET_READER_SERIAL (0x11): the reader serial, uint32 LE in the RSP_EXT.
    public static let getReaderSerial = Self(rawValue: 0x11)
    /// GET_CARD_ID (0x13): SAK-type in Val0, a 4-byte UID in the RSP_EXT.
    public static let getCardID = Self(rawValue: 0x13)
    /// USER_INTERFACE_SIGNAL (0x26): Par0 light mode, Par1 beep mode.
    public static let userInterfaceSignal = Self(rawValue: 0x26)
    /// GET_FIRMWARE_VERSION (0x29): Val0 major, Val1 minor.
    public static let getFirmwareVersion = Self(rawValue: 0x29)
    /// GET_HARDWARE_VERSION (0x2A): Val0 major, Val1 minor.
    public static let getHardwareVersion = Self(rawValue: 0x2A)
    /// GET_BUILD_NUMBER (0x2B): Val0.
    public static let getBuildNumber = Self(rawValue: 0x2B)
    /// GET_CARD_ID_EX (0x2C): Val0 SAK, Val1 UID length, the UID padded to 10 bytes in the RSP_EXT.
    public static let getCardIDEx = Self(rawValue: 0x2C)
    /// GET_DLOGIC_CARD_TYPE (0x3C): Val0 the Digital Logic card type (``UFRCardType``).
    public static let getDLogicCardType = Self(rawValue: 0x3C)
    /// GET_SERIAL_NUMBER (0x40): 8 ASCII bytes in the RSP_EXT (`UN123456`).
    public static let getSerialNumber = Self(rawValue: 0x40)
    /// GET_LAST_CARD_ID_EX (0x7C): as GET_CARD_ID_EX, from the reader's memory.
    public static let getLastCardIDEx = Self(rawValue: 0x7C)
    /// DESFIRE_WRITE_TO_STD_FILE (0x82): the reader authenticates and writes a standard data file.
    public static let desfireWriteStandardFile = Self(rawValue: 0x82)
    /// DESFIRE_READ_FROM_STD_FILE (0x83): the reader authenticates and reads a standard data file
    /// (the data come streamed before the RSP).
    public static let desfireReadStandardFile = Self(rawValue: 0x83)
    /// DESFIRE_CREATE_APPLICATION (0x84).
    public static let desfireCreateApplication = Self(rawValue: 0x84)
    /// DESFIRE_CREATE_STD_FILE (0x85) ("DESFIRE_CREATE_FILE" in the code list).
    public static let desfireCreateStandardFile = Self(rawValue: 0x85)
    /// DESFIRE_CHANGE_AES_KEY (0x86) ("DESFIRE_CREATE_AES_KEY" in the code list).
    public static let desfireChangeKey = Self(rawValue: 0x86)
    /// DESFIRE_FORMAT_CARD (0x8C).
    public static let desfireFormatCard = Self(rawValue: 0x8C)
    /// DESFIRE_FREE_MEM (0x8D): the card's free memory, no authentication.
    public static let desfireFreeMemory = Self(rawValue: 0x8D)
    /// DESFIRE_WRITE_AES_KEY (0x8E): stores a key in one of the reader's key slots (write-only).
    public static let desfireWriteReaderKey = Self(rawValue: 0x8E)
    /// I_BLOCK_TRANSCEIVE (0x90).
    public static let iBlockTransceive = Self(rawValue: 0x90)
    /// R_BLOCK_TRANSCEIVE (0x91).
    public static let rBlockTransceive = Self(rawValue: 0x91)
    /// S_BLOCK_DESELECT (0x92): Par0 the card timeout in ms; ends an ISO 14443-4 session.
    public static let sBlockDeselect = Self(rawValue: 0x92)
    /// SET_ISO14443_4_MODE (0x93): selects the ISO 14443-4 card and stops RF polling.
    public static let setISO14443Layer4Mode = Self(rawValue: 0x93)
    /// APDU_TRANSCEIVE (0x94): Par1 the card timeout in ms, the C-APDU as CMD_EXT, the R-APDU as RSP_EXT.
    public static let apduTransceive = Self(rawValue: 0x94)
    /// GET_READER_STATUS (0xE6).
    public static let getReaderStatus = Self(rawValue: 0xE6)

    /// Commands that only read the reader's state: sending one twice changes nothing, so a
    /// datagram link may send it again when its reply is lost.
    public static let readOnly: Set<UFRCommandCode> = [
        .getReaderType, .getReaderSerial, .getCardID, .getFirmwareVersion, .getHardwareVersion, .getBuildNumber,
        .getCardIDEx, .getDLogicCardType, .getSerialNumber, .getLastCardIDEx, .getReaderStatus,
    ]

    /// The protocol's name for the code, where this backend knows it.
    public var name: String? {
        switch self {
        case .getReaderType: "GET_READER_TYPE"
        case .getReaderSerial: "GET_READER_SERIAL"
        case .getCardID: "GET_CARD_ID"
        case .userInterfaceSignal: "USER_INTERFACE_SIGNAL"
        case .getFirmwareVersion: "GET_FIRMWARE_VERSION"
        case .getHardwareVersion: "GET_HARDWARE_VERSION"
        case .getBuildNumber: "GET_BUILD_NUMBER"
        case .getCardIDEx: "GET_CARD_ID_EX"
        case .getDLogicCardType: "GET_DLOGIC_CARD_TYPE"
        case .getSerialNumber: "GET_SERIAL_NUMBER"
        case .getLastCardIDEx: "GET_LAST_CARD_ID_EX"
        case .desfireWriteStandardFile: "DESFIRE_WRITE_TO_STD_FILE"
        case .desfireReadStandardFile: "DESFIRE_READ_FROM_STD_FILE"
        case .desfireCreateApplication: "DESFIRE_CREATE_APPLICATION"
        case .desfireCreateStandardFile: "DESFIRE_CREATE_STD_FILE"
        case .desfireChangeKey: "DESFIRE_CHANGE_AES_KEY"
        case .desfireFormatCard: "DESFIRE_FORMAT_CARD"
        case .desfireFreeMemory: "DESFIRE_FREE_MEM"
        case .desfireWriteReaderKey: "DESFIRE_WRITE_AES_KEY"
        case .iBlockTransceive: "I_BLOCK_TRANSCEIVE"
        case .rBlockTransceive: "R_BLOCK_TRANSCEIVE"
        case .sBlockDeselect: "S_BLOCK_DESELECT"
        case .setISO14443Layer4Mode: "SET_ISO14443_4_MODE"
        case .apduTransceive: "APDU_TRANSCEIVE"
        case .getReaderStatus: "GET_READER_STATUS"
        default: nil
        }
    }

    public var description: String {
        let hex = [rawValue].spacedHexString
        return name.map { "\($0) (\(hex))" } ?? "command \(hex)"
    }
}
