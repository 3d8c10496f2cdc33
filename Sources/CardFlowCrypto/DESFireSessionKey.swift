/// DESFire EV1 session key derivation from the authentication random numbers.
///
/// Ranges are inclusive byte indices, as in the DESFire EV1 specification
/// (libfreefare `mifare_desfire_session_key_new`).
public enum DESFireSessionKey {
    /// DES (also a 16-byte key with equal halves): `RndA[0...3] ‖ RndB[0...3]`, 8 bytes (use as `K‖K`).
    /// RndA and RndB are 8 bytes.
    public static func des(rndA: [UInt8], rndB: [UInt8]) throws(CardCryptoError) -> [UInt8] {
        try check(rndA, rndB, length: 8)
        return Array(rndA[0...3] + rndB[0...3])
    }

    /// 2K3DES: `RndA[0...3] ‖ RndB[0...3] ‖ RndA[4...7] ‖ RndB[4...7]`, 16 bytes. RndA and RndB are 8 bytes.
    public static func twoKeyTripleDES(rndA: [UInt8], rndB: [UInt8]) throws(CardCryptoError) -> [UInt8] {
        try check(rndA, rndB, length: 8)
        return Array(rndA[0...3] + rndB[0...3] + rndA[4...7] + rndB[4...7])
    }

    /// 3K3DES: `RndA[0...3] ‖ RndB[0...3] ‖ RndA[6...9] ‖ RndB[6...9] ‖ RndA[12...15] ‖ RndB[12...15]`,
    /// 24 bytes. RndA and RndB are 16 bytes.
    public static func threeKeyTripleDES(rndA: [UInt8], rndB: [UInt8]) throws(CardCryptoError) -> [UInt8] {
        try check(rndA, rndB, length: 16)
        return Array(rndA[0...3] + rndB[0...3] + rndA[6...9] + rndB[6...9] + rndA[12...15] + rndB[12...15])
    }

    /// AES: `RndA[0...3] ‖ RndB[0...3] ‖ RndA[12...15] ‖ RndB[12...15]`, 16 bytes. RndA and RndB are 16 bytes.
    public static func aes(rndA: [UInt8], rndB: [UInt8]) throws(CardCryptoError) -> [UInt8] {
        try check(rndA, rndB, length: 16)
        return Array(rndA[0...3] + rndB[0...3] + rndA[12...15] + rndB[12...15])
    }

    private static func check(_ rndA: [UInt8], _ rndB: [UInt8], length: Int) throws(CardCryptoError) {
        guard rndA.count == length else { throw .invalidRandomLength(expected: length, actual: rndA.count) }
        guard rndB.count == length else { throw .invalidRandomLength(expected: length, actual: rndB.count) }
    }
}
