import CardFlow

/// What the activation check reads from a card waiting for authentication: the hashes of the
/// encrypted common secret and password, and the serial number (the seed's getHashes).
public struct TONActivationHashes: Sendable, Hashable {
    /// SHA256(ECS), INS 95.
    public let encryptedCommonSecretHash: [UInt8]
    /// SHA256(B1), INS 93.
    public let encryptedPasswordHash: [UInt8]
    public let serialNumber: TONSerialNumber

    public init(encryptedCommonSecretHash: [UInt8], encryptedPasswordHash: [UInt8], serialNumber: TONSerialNumber) {
        self.encryptedCommonSecretHash = encryptedCommonSecretHash
        self.encryptedPasswordHash = encryptedPasswordHash
        self.serialNumber = serialNumber
    }

    /// `{"ecsHash":hex,"epHash":hex,"serialNumber":"24 digits","status":"ok"}` (no "message", as the seed).
    public var json: String {
        TONJSON.object([
            ("ecsHash", .string(encryptedCommonSecretHash.lowercaseHex)),
            ("epHash", .string(encryptedPasswordHash.lowercaseHex)),
            ("serialNumber", .string(serialNumber.digits)), ("status", .string("ok")),
        ]).rendered
    }
}

/// Sizes of the card keychain.
public struct TONKeychainInfo: Sendable, Hashable {
    public let numberOfKeys: Int
    public let occupiedSize: Int
    public let freeSize: Int

    public init(numberOfKeys: Int, occupiedSize: Int, freeSize: Int) {
        self.numberOfKeys = numberOfKeys
        self.occupiedSize = occupiedSize
        self.freeSize = freeSize
    }

    /// `{"numberOfKeys":"n","occupiedSize":"n","freeSize":"n","status":"ok"}` (strings, as the Swift seed).
    public var json: String {
        TONJSON.object([
            ("numberOfKeys", .string(String(numberOfKeys))), ("occupiedSize", .string(String(occupiedSize))),
            ("freeSize", .string(String(freeSize))), ("status", .string("ok")),
        ]).rendered
    }
}

/// One keychain entry: its id (HMAC of the key bytes) and length.
public struct TONKeyInfo: Sendable, Hashable {
    public let hmac: [UInt8]
    public let length: Int

    public init(hmac: [UInt8], length: Int) {
        self.hmac = hmac
        self.length = length
    }

    /// `{"hmac":hex,"length":"n"}`.
    public var jsonValue: TONJSON {
        .object([("hmac", .string(hmac.lowercaseHex)), ("length", .string(String(length)))])
    }

    /// The Swift seed's getKeyChainDataAboutAllKeys: a bare array `[{"hmac":hex,"length":"n"},…]`.
    public static func json(_ keys: [TONKeyInfo]) -> String {
        TONJSON.array(keys.map(\.jsonValue)).rendered
    }
}

/// Where a key sits in the keychain (GET_KEY_INDEX_IN_STORAGE_AND_LEN).
public struct TONKeyLocation: Sendable, Hashable {
    public let index: Int
    public let length: Int

    public init(index: Int, length: Int) {
        self.index = index
        self.length = length
    }

    /// `{"message":{"index":i,"length":l},"status":"ok"}`.
    public var json: String {
        TONJSON.object([
            ("message", .object([("index", .number(index)), ("length", .number(length))])), ("status", .string("ok")),
        ]).rendered
    }
}
