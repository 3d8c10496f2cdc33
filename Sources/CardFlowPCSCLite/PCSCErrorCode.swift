/// A PC/SC return code (`SCARD_E_…`, `SCARD_W_…`, `SCARD_F_…`, `SCARD_P_…`), by its value.
///
/// The named constants cover the codes pcsc-lite returns; an unnamed value still compares and
/// prints (as hex). Switch over them like an enum:
/// ```swift
/// catch let error as PCSCError where error.code == .removedCard { … }
/// ```
public struct PCSCErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// From a libpcsclite `LONG` (on Linux a 64-bit `long` holding the 32-bit code).
    init(returnValue: Int) { rawValue = UInt32(truncatingIfNeeded: returnValue) }

    public static let internalError = Self(rawValue: 0x8010_0001) // SCARD_F_INTERNAL_ERROR
    public static let cancelled = Self(rawValue: 0x8010_0002) // SCARD_E_CANCELLED
    public static let invalidHandle = Self(rawValue: 0x8010_0003) // SCARD_E_INVALID_HANDLE
    public static let invalidParameter = Self(rawValue: 0x8010_0004) // SCARD_E_INVALID_PARAMETER
    public static let noMemory = Self(rawValue: 0x8010_0006) // SCARD_E_NO_MEMORY
    public static let insufficientBuffer = Self(rawValue: 0x8010_0008) // SCARD_E_INSUFFICIENT_BUFFER
    public static let unknownReader = Self(rawValue: 0x8010_0009) // SCARD_E_UNKNOWN_READER
    public static let timeout = Self(rawValue: 0x8010_000A) // SCARD_E_TIMEOUT
    public static let sharingViolation = Self(rawValue: 0x8010_000B) // SCARD_E_SHARING_VIOLATION
    public static let noSmartcard = Self(rawValue: 0x8010_000C) // SCARD_E_NO_SMARTCARD
    public static let protocolMismatch = Self(rawValue: 0x8010_000F) // SCARD_E_PROTO_MISMATCH
    public static let notReady = Self(rawValue: 0x8010_0010) // SCARD_E_NOT_READY
    public static let invalidValue = Self(rawValue: 0x8010_0011) // SCARD_E_INVALID_VALUE
    public static let systemCancelled = Self(rawValue: 0x8010_0012) // SCARD_E_SYSTEM_CANCELLED
    public static let communicationError = Self(rawValue: 0x8010_0013) // SCARD_F_COMM_ERROR
    public static let unknownError = Self(rawValue: 0x8010_0014) // SCARD_F_UNKNOWN_ERROR
    public static let invalidATR = Self(rawValue: 0x8010_0015) // SCARD_E_INVALID_ATR
    public static let notTransacted = Self(rawValue: 0x8010_0016) // SCARD_E_NOT_TRANSACTED
    public static let readerUnavailable = Self(rawValue: 0x8010_0017) // SCARD_E_READER_UNAVAILABLE
    public static let shutdown = Self(rawValue: 0x8010_0018) // SCARD_P_SHUTDOWN
    public static let pciTooSmall = Self(rawValue: 0x8010_0019) // SCARD_E_PCI_TOO_SMALL
    public static let readerUnsupported = Self(rawValue: 0x8010_001A) // SCARD_E_READER_UNSUPPORTED
    public static let duplicateReader = Self(rawValue: 0x8010_001B) // SCARD_E_DUPLICATE_READER
    public static let cardUnsupported = Self(rawValue: 0x8010_001C) // SCARD_E_CARD_UNSUPPORTED
    public static let noService = Self(rawValue: 0x8010_001D) // SCARD_E_NO_SERVICE
    public static let serviceStopped = Self(rawValue: 0x8010_001E) // SCARD_E_SERVICE_STOPPED
    // SCARD_E_UNSUPPORTED_FEATURE (= SCARD_E_UNEXPECTED)
    public static let unsupportedFeature = Self(rawValue: 0x8010_001F)
    public static let noReadersAvailable = Self(rawValue: 0x8010_002E) // SCARD_E_NO_READERS_AVAILABLE
    public static let communicationDataLost = Self(rawValue: 0x8010_002F) // SCARD_E_COMM_DATA_LOST
    public static let serverTooBusy = Self(rawValue: 0x8010_0031) // SCARD_E_SERVER_TOO_BUSY
    public static let unsupportedCard = Self(rawValue: 0x8010_0065) // SCARD_W_UNSUPPORTED_CARD
    public static let unresponsiveCard = Self(rawValue: 0x8010_0066) // SCARD_W_UNRESPONSIVE_CARD
    public static let unpoweredCard = Self(rawValue: 0x8010_0067) // SCARD_W_UNPOWERED_CARD
    public static let resetCard = Self(rawValue: 0x8010_0068) // SCARD_W_RESET_CARD
    public static let removedCard = Self(rawValue: 0x8010_0069) // SCARD_W_REMOVED_CARD
    public static let securityViolation = Self(rawValue: 0x8010_006A) // SCARD_W_SECURITY_VIOLATION

    private static let names: [UInt32: String] = [
        0x8010_0001: "SCARD_F_INTERNAL_ERROR", 0x8010_0002: "SCARD_E_CANCELLED",
        0x8010_0003: "SCARD_E_INVALID_HANDLE", 0x8010_0004: "SCARD_E_INVALID_PARAMETER",
        0x8010_0005: "SCARD_E_INVALID_TARGET", 0x8010_0006: "SCARD_E_NO_MEMORY",
        0x8010_0007: "SCARD_F_WAITED_TOO_LONG", 0x8010_0008: "SCARD_E_INSUFFICIENT_BUFFER",
        0x8010_0009: "SCARD_E_UNKNOWN_READER", 0x8010_000A: "SCARD_E_TIMEOUT",
        0x8010_000B: "SCARD_E_SHARING_VIOLATION", 0x8010_000C: "SCARD_E_NO_SMARTCARD",
        0x8010_000D: "SCARD_E_UNKNOWN_CARD", 0x8010_000E: "SCARD_E_CANT_DISPOSE",
        0x8010_000F: "SCARD_E_PROTO_MISMATCH", 0x8010_0010: "SCARD_E_NOT_READY",
        0x8010_0011: "SCARD_E_INVALID_VALUE", 0x8010_0012: "SCARD_E_SYSTEM_CANCELLED",
        0x8010_0013: "SCARD_F_COMM_ERROR", 0x8010_0014: "SCARD_F_UNKNOWN_ERROR",
        0x8010_0015: "SCARD_E_INVALID_ATR", 0x8010_0016: "SCARD_E_NOT_TRANSACTED",
        0x8010_0017: "SCARD_E_READER_UNAVAILABLE", 0x8010_0018: "SCARD_P_SHUTDOWN",
        0x8010_0019: "SCARD_E_PCI_TOO_SMALL", 0x8010_001A: "SCARD_E_READER_UNSUPPORTED",
        0x8010_001B: "SCARD_E_DUPLICATE_READER", 0x8010_001C: "SCARD_E_CARD_UNSUPPORTED",
        0x8010_001D: "SCARD_E_NO_SERVICE", 0x8010_001E: "SCARD_E_SERVICE_STOPPED",
        0x8010_001F: "SCARD_E_UNSUPPORTED_FEATURE", 0x8010_0020: "SCARD_E_ICC_INSTALLATION",
        0x8010_0021: "SCARD_E_ICC_CREATEORDER", 0x8010_0023: "SCARD_E_DIR_NOT_FOUND",
        0x8010_0024: "SCARD_E_FILE_NOT_FOUND", 0x8010_0025: "SCARD_E_NO_DIR",
        0x8010_0026: "SCARD_E_NO_FILE", 0x8010_0027: "SCARD_E_NO_ACCESS",
        0x8010_0028: "SCARD_E_WRITE_TOO_MANY", 0x8010_0029: "SCARD_E_BAD_SEEK",
        0x8010_002A: "SCARD_E_INVALID_CHV", 0x8010_002B: "SCARD_E_UNKNOWN_RES_MNG",
        0x8010_002C: "SCARD_E_NO_SUCH_CERTIFICATE", 0x8010_002D: "SCARD_E_CERTIFICATE_UNAVAILABLE",
        0x8010_002E: "SCARD_E_NO_READERS_AVAILABLE", 0x8010_002F: "SCARD_E_COMM_DATA_LOST",
        0x8010_0030: "SCARD_E_NO_KEY_CONTAINER", 0x8010_0031: "SCARD_E_SERVER_TOO_BUSY",
        0x8010_0065: "SCARD_W_UNSUPPORTED_CARD", 0x8010_0066: "SCARD_W_UNRESPONSIVE_CARD",
        0x8010_0067: "SCARD_W_UNPOWERED_CARD", 0x8010_0068: "SCARD_W_RESET_CARD",
        0x8010_0069: "SCARD_W_REMOVED_CARD", 0x8010_006A: "SCARD_W_SECURITY_VIOLATION",
        0x8010_006B: "SCARD_W_WRONG_CHV", 0x8010_006C: "SCARD_W_CHV_BLOCKED",
        0x8010_006D: "SCARD_W_EOF", 0x8010_006E: "SCARD_W_CANCELLED_BY_USER",
        0x8010_006F: "SCARD_W_CARD_NOT_AUTHENTICATED",
    ]

    /// The header's name, such as `SCARD_E_NO_SMARTCARD`, or nil for a value it does not define.
    public var name: String? { Self.names[rawValue] }

    /// `SCARD_W_REMOVED_CARD (0x80100069)`.
    public var description: String {
        let hex = "0x" + String(rawValue, radix: 16, uppercase: true)
        return name.map { "\($0) (\(hex))" } ?? "unknown PC/SC code \(hex)"
    }

    /// The card left, was reset or powered down by someone else, or never answered: a new
    /// connection (or a reconnect) is needed, the reader itself is fine.
    public var meansCardLost: Bool {
        [.removedCard, .resetCard, .unpoweredCard, .unresponsiveCard, .noSmartcard].contains(self)
    }

    /// The reader (or pcscd) went away: the context or the reader name is no longer usable.
    public var meansReaderLost: Bool {
        [.readerUnavailable, .unknownReader, .noService, .serviceStopped, .noReadersAvailable].contains(self)
    }
}
