/// Why a card state could not be loaded or saved by ``CardStateStore``.
///
/// A state file that cannot be used is reported, never reset or overwritten.
public enum CardStateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No file at the path.
    case notFound(path: String)
    /// The file exists but could not be read (permissions, a directory, I/O error).
    case unreadable(path: String, reason: String)
    /// The file is not a valid card state (not JSON, missing fields, invalid values).
    case corrupt(path: String, reason: String)
    /// The file holds the state of another card model.
    case wrongKind(path: String, expected: String, found: String)
    /// The file was written in a state format this version does not know.
    case unsupportedFormat(path: String, version: Int)
    /// The card could not be encoded.
    case encodingFailed(reason: String)
    /// Writing, syncing or renaming the file failed.
    case writeFailed(path: String, reason: String)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .notFound(let path): "no card state at \(path)"
        case .unreadable(let path, let reason): "card state \(path) is unreadable: \(reason)"
        case .corrupt(let path, let reason): "card state \(path) is corrupt: \(reason)"
        case .wrongKind(let path, let expected, let found):
            "card state \(path) belongs to a \"\(found)\" card, not \"\(expected)\""
        case .unsupportedFormat(let path, let version): "card state \(path) has unsupported format \(version)"
        case .encodingFailed(let reason): "card state could not be encoded: \(reason)"
        case .writeFailed(let path, let reason): "card state \(path) could not be written: \(reason)"
        }
    }
}
