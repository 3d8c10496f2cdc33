import CardFlow

/// A DESFire native status byte (SW2 after `91`), with the card's meaning.
///
/// ```swift
/// DESFireStatus(code: 0x9D)            // .permissionDenied
/// DESFireStatus.permissionDenied.meaning
/// ```
public enum DESFireStatus: Hashable, Sendable, CustomStringConvertible {
    case operationOK
    case noChanges
    case outOfEEPROM
    case illegalCommandCode
    case integrityError
    case noSuchKey
    case lengthError
    case permissionDenied
    case parameterError
    case applicationNotFound
    case applicationIntegrityError
    case authenticationError
    case additionalFrame
    case boundaryError
    case piccIntegrityError
    case commandAborted
    case piccDisabled
    case countError
    case duplicateError
    case eepromError
    case fileNotFound
    case fileIntegrityError
    /// A status byte this client does not know.
    case unknown(UInt8)

    private static let table: [(UInt8, DESFireStatus, String, String)] = [
        (0x00, .operationOK, "OPERATION_OK", "success"),
        (0x0C, .noChanges, "NO_CHANGES", "no changes done to backup files, commit/abort not necessary"),
        (0x0E, .outOfEEPROM, "OUT_OF_EEPROM_ERROR", "insufficient NV memory"),
        (0x1C, .illegalCommandCode, "ILLEGAL_COMMAND_CODE", "command not supported"),
        (0x1E, .integrityError, "INTEGRITY_ERROR", "CRC or MAC does not match, or invalid padding"),
        (0x40, .noSuchKey, "NO_SUCH_KEY", "invalid key number"),
        (0x7E, .lengthError, "LENGTH_ERROR", "length of command string invalid"),
        (0x9D, .permissionDenied, "PERMISSION_DENIED", "current configuration or status does not allow the command"),
        (0x9E, .parameterError, "PARAMETER_ERROR", "value of parameter(s) invalid"),
        (0xA0, .applicationNotFound, "APPLICATION_NOT_FOUND", "application not present"),
        (
            0xA1, .applicationIntegrityError, "APPL_INTEGRITY_ERROR",
            "unrecoverable error in application, application disabled"
        ),
        (
            0xAE, .authenticationError, "AUTHENTICATION_ERROR",
            "authentication status does not allow the command, or authentication failed"
        ),
        (0xAF, .additionalFrame, "ADDITIONAL_FRAME", "more frames follow or are expected"),
        (0xBE, .boundaryError, "BOUNDARY_ERROR", "read/write beyond file or record limits, or value limit exceeded"),
        (0xC1, .piccIntegrityError, "PICC_INTEGRITY_ERROR", "unrecoverable PICC error, PICC disabled"),
        (0xCA, .commandAborted, "COMMAND_ABORTED", "previous command not fully completed"),
        (0xCD, .piccDisabled, "PICC_DISABLED_ERROR", "PICC disabled by an unrecoverable error"),
        (0xCE, .countError, "COUNT_ERROR", "application count limited to 28"),
        (0xDE, .duplicateError, "DUPLICATE_ERROR", "file or application already exists"),
        (0xEE, .eepromError, "EEPROM_ERROR", "NV write failed; backup/rollback activated"),
        (0xF0, .fileNotFound, "FILE_NOT_FOUND", "file number does not exist"),
        (0xF1, .fileIntegrityError, "FILE_INTEGRITY_ERROR", "unrecoverable error in file, file disabled"),
    ]

    /// The status for a status byte.
    public init(code: UInt8) {
        self = Self.table.first { $0.0 == code }?.1 ?? .unknown(code)
    }

    /// The status byte.
    public var code: UInt8 {
        if case .unknown(let code) = self { return code }
        return Self.table.first { $0.1 == self }!.0
    }

    /// The name used by libfreefare and proxmark3, e.g. `PERMISSION_DENIED`.
    public var name: String {
        Self.table.first { $0.1 == self }?.2 ?? "UNKNOWN"
    }

    /// What the card means by it.
    public var meaning: String {
        Self.table.first { $0.1 == self }?.3 ?? "unknown status"
    }

    /// For example `"9D PERMISSION_DENIED (current configuration ...)"`.
    public var description: String { "\([code].hexString) \(name) (\(meaning))" }
}
