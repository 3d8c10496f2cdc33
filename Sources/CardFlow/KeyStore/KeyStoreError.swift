#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a ``KeyStore`` operation failed.
///
/// No case carries key or secret bytes, so the errors are safe to print and log.
public enum KeyStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A key slot number outside 0...15.
    case slotOutOfRange(Int)
    /// Key bytes whose count does not match the algorithm's key length.
    case wrongKeyLength(algorithm: SymmetricKeyAlgorithm, byteCount: Int)
    /// A secret name that breaks the naming rule (1 to 128 of ASCII letters, digits and `. _ - : @ + /`).
    case invalidSecretName(String)
    /// A secret of zero bytes.
    case emptySecret
    /// ``KeyStore/deleteKey(in:)`` found no key in the slot.
    case keyNotFound(KeySlot)
    /// ``KeyStore/deleteSecret(named:)`` found no secret of that name.
    case secretNotFound(name: String)
    /// The key store file can be read or written by group or others (`mode` holds its permission
    /// bits). The file is neither read nor changed until it is `chmod 600`.
    case permissionsTooOpen(path: String, mode: UInt32)
    /// The key store path names something other than a regular file (a directory, a symbolic link…).
    case notARegularFile(path: String)
    /// The key store file is not a key store (bad JSON, unknown algorithm, wrong key length…).
    /// It is left as it is; `reason` says what is wrong without quoting any key material.
    case corruptFile(path: String, reason: String)
    /// The key store file was written by a newer format version than this library reads.
    case unsupportedFormatVersion(path: String, version: Int)
    /// Reading the key store file failed with the system error `errno`.
    case readFailed(path: String, errno: Int32)
    /// Writing the key store failed with the system error `errno` during `step` (e.g. `"rename"`);
    /// the previous file, if any, is unchanged.
    case writeFailed(path: String, step: String, errno: Int32)
    /// No default key store location: neither `XDG_CONFIG_HOME` nor `HOME` is set to an absolute path.
    case noDefaultLocation

    public var description: String {
        switch self {
        case .slotOutOfRange(let number):
            return
                "key slot \(number) is outside \(KeySlot.validNumbers.lowerBound)...\(KeySlot.validNumbers.upperBound)"
        case .wrongKeyLength(let algorithm, let byteCount):
            return "\(algorithm.displayName) keys have \(algorithm.keyLength) bytes, not \(byteCount)"
        case .invalidSecretName(let name):
            return
                "invalid secret name \(String(reflecting: name)): use 1 to \(SecretNameRule.maxLength) of ASCII letters, digits and . _ - : @ + /"
        case .emptySecret:
            return "a secret needs at least one byte"
        case .keyNotFound(let slot):
            return "no key in \(slot)"
        case .secretNotFound(let name):
            return "no secret named \(String(reflecting: name))"
        case .permissionsTooOpen(let path, let mode):
            return
                "key store \(path) is accessible by group or others (mode \(Self.octal(mode))); run: chmod 600 \(path)"
        case .notARegularFile(let path):
            return "key store \(path) is not a regular file (symbolic links and directories are refused)"
        case .corruptFile(let path, let reason):
            return "key store \(path) is corrupt (\(reason)); it was left unchanged"
        case .unsupportedFormatVersion(let path, let version):
            return
                "key store \(path) has format version \(version), newer than this program reads; it was left unchanged"
        case .readFailed(let path, let code):
            return "cannot read key store \(path): \(Self.systemMessage(code))"
        case .writeFailed(let path, let step, let code):
            return
                "cannot write key store \(path) (\(step)): \(Self.systemMessage(code)); the previous file is unchanged"
        case .noDefaultLocation:
            return "no default key store location: set XDG_CONFIG_HOME or HOME, or give a path"
        }
    }

    private static func octal(_ mode: UInt32) -> String {
        let digits = String(mode & 0o7777, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    private static func systemMessage(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }
}
