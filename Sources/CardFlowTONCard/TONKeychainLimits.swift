/// The card keychain's limits (section 4), checked before anything is sent.
public enum TONKeychainLimits {
    /// Most keys the keychain holds.
    public static let maxKeys = 1023
    /// Longest key.
    public static let maxKeySize = 8192
    /// Total storage for all keys.
    public static let storageSize = 32767
    /// Bytes per ADD/CHANGE/GET_KEY_CHUNK the client uses.
    public static let chunkSize = 128
    /// Most 128-byte packets an interrupted delete can still move (the applet moves the keys
    /// after the deleted one: at most the storage less the smallest key, reference 3.5).
    public static let maxDeleteChunkPackets = (storageSize - 1) / chunkSize
    /// Most 12-record packets an interrupted delete can still shift (the records after the
    /// deleted key: at most 1022).
    public static let maxDeleteRecordPackets = (maxKeys - 1) / 12

    /// Parses a key given in hex (30019 not hex, 30020 longer than 16384 characters or empty).
    public static func key(hex: String) throws(TONError) -> [UInt8] {
        try TONHexInput.bytes(hex, lengths: 2...(2 * maxKeySize), lengthCode: 30020, formatCode: 30019)
    }

    /// Parses a key id (HMAC) given in hex (30017 length, 30018 not hex).
    public static func keyHmac(hex: String) throws(TONError) -> [UInt8] {
        try TONHexInput.bytes(hex, lengths: 64...64, lengthCode: 30017, formatCode: 30018)
    }

    static func checkKey(_ key: [UInt8]) throws(TONError) {
        guard (1...maxKeySize).contains(key.count) else { throw .library(code: 30021) }
    }

    static func checkHmac(_ hmac: [UInt8]) throws(TONError) {
        guard hmac.count == 32 else { throw .library(code: 10013) }
    }

    static func checkIndex(_ index: Int) throws(TONError) {
        guard (0..<maxKeys).contains(index) else { throw .library(code: 30023) }
    }
}
