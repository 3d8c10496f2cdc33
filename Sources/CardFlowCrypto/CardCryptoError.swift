/// Errors thrown by the CardFlowCrypto primitives.
///
/// Every operation validates its inputs before touching a cipher, so a wrong key, IV or data length
/// is reported precisely instead of surfacing as a generic library failure.
public enum CardCryptoError: Error, Equatable, Sendable {
    /// The key has a length the algorithm does not accept.
    case invalidKeyLength(algorithm: String, accepted: [Int], actual: Int)
    /// The initialization vector is not exactly one block long.
    case invalidIVLength(expected: Int, actual: Int)
    /// The data to encrypt or decrypt without padding is not a whole number of blocks.
    case dataNotBlockAligned(length: Int, blockSize: Int)
    /// A requested MAC length is outside `0...blockSize`.
    case invalidMACLength(requested: Int, blockSize: Int)
    /// A random number (RndA or RndB) passed to session key derivation has the wrong length.
    case invalidRandomLength(expected: Int, actual: Int)
    /// OpenSSL (system libcrypto) reported a failure; `message` is OpenSSL's error string.
    case openSSLFailure(operation: String, message: String)
    /// swift-crypto reported an unexpected failure after the inputs were validated.
    case swiftCryptoFailure(operation: String, message: String)
    /// An AN10922 diversification input `M` is empty or longer than the 31 bytes that fit beside
    /// the diversification constant in two blocks (see ``AN10922``).
    case invalidDiversificationInput(length: Int, accepted: ClosedRange<Int>)
    /// A DESFire application identifier above 0xFFFFFF (it has 3 bytes).
    case invalidApplicationID(UInt32)
}
