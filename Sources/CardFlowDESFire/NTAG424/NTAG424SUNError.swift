import CardFlow
import CardFlowCrypto

/// Why a SUN message from an NTAG 424 DNA did not verify.
///
/// Every case names the step that failed. A message that fails must be rejected as a whole: none of
/// its UID, counter or file data can be trusted.
///
/// ```swift
/// do { message = try verifier.verify(piccData: e, mac: c) }
/// catch NTAG424SUNError.macMismatch { … }   // forged, tampered, or another key
/// ```
public enum NTAG424SUNError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The keys of SDM.
    public enum Key: String, Sendable {
        /// SDMMetaReadKey: enciphers PICCData.
        case metaRead = "SDMMetaReadKey"
        /// SDMFileReadKey: derives the SDM session keys for SDMMAC and SDMENCFileData.
        case fileRead = "SDMFileReadKey"
    }

    /// The parts of a SUN message.
    public enum Field: String, Sendable {
        case piccData = "PICCData"
        case uid = "UID"
        case sdmMAC = "SDMMAC"
        case encFileData = "SDMENCFileData"
    }

    /// A key is not 16 bytes, or is needed and was not given.
    case invalidKey(Key, length: Int?)
    /// A field has the wrong length.
    case invalidLength(Field, expected: String, actual: Int)
    /// PICCData deciphered to a tag byte that is not one (reserved bits set, or a UID length other
    /// than 7): the SDMMetaReadKey is wrong, or the data is not PICCData.
    case unexpectedPICCDataTag(UInt8)
    /// A read counter above the 24 bits SDMReadCtr has.
    case counterOutOfRange(UInt32)
    /// SDMENCFileData is enciphered with a key derived from UID and SDMReadCtr, so both must be mirrored.
    case fileDataNeedsUIDAndCounter
    /// The file read key lookup knows no key for this UID.
    case unknownTag(uid: [UInt8]?)
    /// The SDMMAC does not verify: forged, tampered, replayed under another counter, or another key.
    case macMismatch
    /// A cryptographic primitive rejected its input.
    case crypto(CardCryptoError)

    public var description: String {
        switch self {
        case .invalidKey(let key, let length):
            length.map { "\(key.rawValue) has \($0) bytes, expected 16" }
                ?? "\(key.rawValue) is needed and was not given"
        case .invalidLength(let field, let expected, let actual):
            "\(field.rawValue) has \(actual) bytes, expected \(expected)"
        case .unexpectedPICCDataTag(let tag):
            "PICCData deciphered to tag \([tag].hexString): wrong SDMMetaReadKey, or not PICCData"
        case .counterOutOfRange(let counter): "read counter \(counter) does not fit 24 bits"
        case .fileDataNeedsUIDAndCounter: "SDMENCFileData needs UID and SDMReadCtr mirrored"
        case .unknownTag(let uid): "no SDMFileReadKey for UID \(uid?.hexString ?? "(not mirrored)")"
        case .macMismatch: "SDMMAC does not verify"
        case .crypto(let error): "cryptographic failure: \(error)"
        }
    }
}

/// Runs `body`, turning a ``CardCryptoError`` into ``NTAG424SUNError/crypto(_:)``.
func sunCrypto<T>(_ body: () throws(CardCryptoError) -> T) throws(NTAG424SUNError) -> T {
    do { return try body() } catch { throw .crypto(error) }
}

/// Throws unless `key` is an AES-128 key.
func checkSUNKey(_ key: [UInt8], _ role: NTAG424SUNError.Key) throws(NTAG424SUNError) {
    guard key.count == 16 else { throw .invalidKey(role, length: key.count) }
}
