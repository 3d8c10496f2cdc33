/// The native status codes of NT4H2421Gx (SW1 `91`, SW2 this value), as the simulated card
/// answers them (internal).
enum NTAG424Status: UInt8, Error, Sendable {
    case ok = 0x00
    case illegalCommand = 0x1C
    case integrityError = 0x1E
    case noSuchKey = 0x40
    case lengthError = 0x7E
    case permissionDenied = 0x9D
    case parameterError = 0x9E
    case authenticationError = 0xAE
    case additionalFrame = 0xAF
    case boundaryError = 0xBE
    case commandAborted = 0xCA
    case fileNotFound = 0xF0
}
