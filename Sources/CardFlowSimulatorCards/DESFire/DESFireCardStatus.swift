/// The DESFire status byte (SW2 after `91`) a ``DESFireCard`` answers with.
///
/// Thrown by the command handlers; every code except ``ok`` and ``additionalFrame`` ends the
/// authenticated session and aborts the pending transaction, as on a real card.
enum DESFireCardStatus: UInt8, Error, Sendable, Hashable, CaseIterable {
    case ok = 0x00
    case noChanges = 0x0C
    case outOfMemory = 0x0E
    case illegalCommand = 0x1C
    case integrityError = 0x1E
    case noSuchKey = 0x40
    case lengthError = 0x7E
    case permissionDenied = 0x9D
    case parameterError = 0x9E
    case applicationNotFound = 0xA0
    case authenticationError = 0xAE
    case additionalFrame = 0xAF
    case boundaryError = 0xBE
    case commandAborted = 0xCA
    case countError = 0xCE
    case duplicateError = 0xDE
    case fileNotFound = 0xF0
}
