/// A message to sign: 1...189 bytes for the default path, 1...178 bytes with an HD index.
public enum TONMessage {
    /// Longest message SIGN_SHORT_MESSAGE_WITH_DEFAULT_PATH takes.
    public static let maxForDefaultPath = 189
    /// Longest message SIGN_SHORT_MESSAGE takes.
    public static let maxWithIndex = 178

    /// Parses hex for signing (30008 not hex; 30009/30010 length for default path / indexed).
    public static func bytes(hex: String, withIndex: Bool) throws(TONError) -> [UInt8] {
        let limit = withIndex ? maxWithIndex : maxForDefaultPath
        return try TONHexInput.bytes(
            hex, lengths: 2...(2 * limit), lengthCode: withIndex ? 30010 : 30009, formatCode: 30008)
    }

    static func check(_ data: [UInt8], withIndex: Bool) throws(TONError) {
        let limit = withIndex ? maxWithIndex : maxForDefaultPath
        guard (1...limit).contains(data.count) else { throw .library(code: withIndex ? 10010 : 10009) }
    }
}
