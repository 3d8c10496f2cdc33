import Crypto

/// Ed25519 public keys and signatures (spec §6) with the model's own HD derivation (see
/// ``SimulatedTONCard``).
extension SimulatedTONCard {
    /// The largest message SIGN_SHORT_MESSAGE_WITH_DEFAULT_PATH accepts.
    static let maxDefaultPathMessage = 189
    /// The largest message SIGN_SHORT_MESSAGE accepts.
    static let maxIndexedMessage = 178

    /// The Ed25519 key of HD index `index`, or `nil` without a seed.
    ///
    /// `HMAC-SHA256(key: rootSeed, message: ASCII("m/44'/396'/0'/0'/<index>'"))` as the raw
    /// private key.
    func signingKey(index: UInt32) -> Curve25519.Signing.PrivateKey? {
        guard let rootSeed, index <= 0x7FFF_FFFF else { return nil }
        let path = Array("m/44'/396'/0'/0'/\(index)'".utf8)
        return try? Curve25519.Signing.PrivateKey(
            rawRepresentation: TONActivationCrypto.hmacSHA256(key: rootSeed, path))
    }

    /// An HD index sent as 1…10 ASCII decimal digits, at most 2³¹−1; `nil` otherwise.
    static func parseIndex(_ digits: ArraySlice<UInt8>) -> UInt32? {
        guard (1...10).contains(digits.count) else { return nil }
        var value: UInt64 = 0
        for digit in digits {
            guard (0x30...0x39).contains(digit) else { return nil }
            value = value * 10 + UInt64(digit - 0x30)
        }
        return value <= 0x7FFF_FFFF ? UInt32(value) : nil
    }

    /// GET_PUBLIC_KEY_WITH_DEFAULT_HD_PATH `A7`: 32 bytes, `Le` 20.
    func getPublicKeyForDefaultPath(_ apdu: ISO7816CommandAPDU) throws(StatusWord) -> [UInt8] {
        try requirePINNotExpired()
        try apdu.requireLe(32)
        return try publicKey(index: 0)
    }

    /// GET_PUBLIC_KEY `A0`: index as 1…10 ASCII digits (`67 00` beyond 10), `Le` 20;
    /// a malformed index or a missing seed gives `6F 03`; `6F 08` (checked first) once the
    /// PIN tries are used up.
    func getPublicKey(_ apdu: ISO7816CommandAPDU) throws(StatusWord) -> [UInt8] {
        try requirePINNotExpired()
        guard (1...10).contains(apdu.data.count) else { throw StatusWord(TONStatus.wrongLength) }
        try apdu.requireLe(32)
        guard let index = Self.parseIndex(apdu.data[...]) else { throw StatusWord(TONStatus.getCoinPubDataFailed) }
        return try publicKey(index: index)
    }

    /// `6F 08` once 10 consecutive VERIFY_PIN failed: the applet checks this first.
    private func requirePINNotExpired() throws(StatusWord) {
        guard pinFailures < Self.maxPINTries else { throw StatusWord(TONStatus.pinTriesExpired) }
    }

    private func publicKey(index: UInt32) throws(StatusWord) -> [UInt8] {
        guard let key = signingKey(index: index) else { throw StatusWord(TONStatus.getCoinPubDataFailed) }
        return Array(key.publicKey.rawRepresentation)
    }

    /// SIGN_SHORT_MESSAGE_WITH_DEFAULT_PATH `A5`: protected, payload `00 L | message`
    /// (L 1…189), `Le` 40; `6F 04` without a verified PIN.
    mutating func signWithDefaultPath(_ apdu: ISO7816CommandAPDU) throws(StatusWord) -> [UInt8] {
        let data = apdu.data
        guard data.count >= 2, data[0] == 0, (1...Self.maxDefaultPathMessage).contains(Int(data[1])),
            data.count == Int(data[1]) + 66
        else { throw StatusWord(TONStatus.wrongLength) }
        let payload = try verifyProtected(data, payloadLength: Int(data[1]) + 2)
        try apdu.requireLe(64)
        return try signature(of: payload[2...], index: 0)
    }

    /// SIGN_SHORT_MESSAGE `A3`: protected, payload `00 L | message | n | index digits`
    /// (L 1…178, n 1…10), `Le` 40; `6F 04` without a verified PIN or with a malformed index.
    mutating func sign(_ apdu: ISO7816CommandAPDU) throws(StatusWord) -> [UInt8] {
        let data = apdu.data
        guard data.count >= 3, data[0] == 0 else { throw StatusWord(TONStatus.wrongLength) }
        let length = Int(data[1])
        guard (1...Self.maxIndexedMessage).contains(length), data.count > length + 2 else {
            throw StatusWord(TONStatus.wrongLength)
        }
        let digitCount = Int(data[length + 2])
        guard (1...10).contains(digitCount), data.count == length + digitCount + 67 else {
            throw StatusWord(TONStatus.wrongLength)
        }
        let payload = try verifyProtected(data, payloadLength: length + digitCount + 3)
        try apdu.requireLe(64)
        guard let index = Self.parseIndex(payload[(length + 3)...]) else { throw StatusWord(TONStatus.signDataFailed) }
        return try signature(of: payload[2..<(length + 2)], index: index)
    }

    private func signature(of message: ArraySlice<UInt8>, index: UInt32) throws(StatusWord) -> [UInt8] {
        guard pinVerified, let key = signingKey(index: index),
            let signature = try? key.signature(for: Array(message))
        else {
            throw StatusWord(TONStatus.signDataFailed)
        }
        return Array(signature)
    }
}
